/**
 * The sticky pull request comment, through the GitHub REST API with the job's token: find cairn's
 * earlier comment by its hidden marker and its author, and edit it in place, or create one. Never throws: a token
 * without write access (pull requests from forks) is a reported outcome, not a failed check.
 */
import { COMMENT_MARKER } from "./report.js";

export type CommentTarget = { apiUrl: string; repository: string; pullRequest: number; token: string };

export type CommentOutcome =
  | { kind: "created" | "updated" | "unchanged"; id: number; url: string }
  | { kind: "skipped"; reason: string }
  | { kind: "failed"; reason: string };

type IssueComment = { id: number; body?: string | null; html_url: string; user?: { login?: string; type?: string } | null };

const PAGE = 100;
/** Pages of comments searched for the marker (10,000 comments). */
const MAX_PAGES = 100;

/** Create or update the comment holding COMMENT_MARKER; with `createIfMissing: false` only an existing one is updated. */
export async function upsertComment(target: CommentTarget, body: string, options: { createIfMissing: boolean }): Promise<CommentOutcome> {
  const api = github(target);
  try {
    const existing = await findComment(api, target);
    if (existing) {
      if (existing.body === body) return { kind: "unchanged", id: existing.id, url: existing.html_url };
      const updated = await api<IssueComment>("PATCH", `/issues/comments/${existing.id}`, { body });
      return { kind: "updated", id: updated.id, url: updated.html_url };
    }
    if (!options.createIfMissing) return { kind: "skipped", reason: "nothing to report and no earlier comment to update" };
    const created = await api<IssueComment>("POST", `/issues/${target.pullRequest}/comments`, { body });
    return { kind: "created", id: created.id, url: created.html_url };
  } catch (error) {
    return { kind: "failed", reason: (error as Error).message };
  }
}

/**
 * cairn's earlier comment: one holding the marker, written by a bot (the job's token posts as `github-actions[bot]`)
 * or by the token's own user (a personal token). Anyone can write the marker into a comment of their own: the first
 * comment to hold it is not necessarily cairn's, and editing it would hand the report to its author.
 */
async function findComment(api: Api, target: CommentTarget): Promise<IssueComment | undefined> {
  let me: string | null | undefined;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const comments = await api<IssueComment[]>("GET", `/issues/${target.pullRequest}/comments?per_page=${PAGE}&page=${page}`);
    for (const comment of comments.filter((c) => c.body?.includes(COMMENT_MARKER))) {
      if (comment.user?.type === "Bot") return comment;
      me ??= await tokenUser(target);
      if (me !== null && comment.user?.login === me) return comment;
    }
    if (comments.length < PAGE) return undefined;
  }
  return undefined;
}

/** The login of the token's user, or null when the token has none (the job's token answers 403 here). */
async function tokenUser(target: CommentTarget): Promise<string | null> {
  try {
    const response = await fetch(`${target.apiUrl}/user`, { headers: headers(target) });
    if (!response.ok) return null;
    const user = (await response.json()) as { login?: unknown };
    return typeof user.login === "string" ? user.login : null;
  } catch {
    return null;
  }
}

function headers(target: CommentTarget): Record<string, string> {
  return { accept: "application/vnd.github+json", authorization: `Bearer ${target.token}`, "x-github-api-version": "2022-11-28", "user-agent": "cairn-action" };
}

type Api = <T>(method: "GET" | "POST" | "PATCH", route: string, body?: unknown) => Promise<T>;

function github(target: CommentTarget): Api {
  return async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const url = `${target.apiUrl}/repos/${target.repository}${route}`;
    const response = await fetch(url, {
      method,
      headers: { ...headers(target), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      const detail = ((await response.text().catch(() => "")) || response.statusText).slice(0, 300);
      const hint = response.status === 403 || response.status === 404 ? " (the token needs `pull-requests: write`; pull requests from forks get a read-only token)" : "";
      throw new Error(`${method} ${route.split("?")[0]} answered ${response.status}: ${detail}${hint}`);
    }
    return (await response.json()) as T;
  };
}
