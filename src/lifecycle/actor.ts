/** Who acts: the name recorded on every ledger event the tool writes (the audit trail). */
import { execFile } from "node:child_process";
import os from "node:os";

/** The environment variable that names the actor for every command (e.g. a CI bot); beats git and the OS user. */
export const ACTOR_ENV = "CAIRN_ACTOR";

function gitUserName(root: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("git", ["config", "user.name"], { cwd: root, timeout: 2_000, windowsHide: true }, (error, stdout) => {
      resolve(error ? undefined : stdout.trim() || undefined);
    });
  });
}

function osUser(): string | undefined {
  try {
    return os.userInfo().username || undefined;
  } catch {
    return undefined;
  }
}

/** `$CAIRN_ACTOR`, else `git config user.name` in `root`, else the OS user name, else "unknown". Never throws. */
export async function detectActor(root: string): Promise<string> {
  const fromEnv = process.env[ACTOR_ENV]?.trim();
  if (fromEnv) return fromEnv;
  return (await gitUserName(root)) ?? osUser() ?? "unknown";
}
