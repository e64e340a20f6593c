/** Error codes the CLI maps to exit codes and messages in one place. */
export type CairnErrorCode =
  | "USAGE" // bad arguments or input shape: exit 2
  | "NOT_FOUND" // unknown entry id: exit 1
  | "CONFLICT" // refusing to overwrite / duplicate id: exit 1
  | "INVALID" // input failed validation: exit 1
  | "CONFIG" // cairn.config.json is invalid: exit 2
  | "IO" // file system / git failure: exit 3
  | "LOCKED" // another writer holds the index lock: exit 3
  | "UNSAFE_PATH"; // a path leaves the repository (often through a symbolic link): exit 2

/** The one error class the library throws when the caller must stop. */
export class CairnError extends Error {
  /** What kind of failure, which decides the CLI's exit code. */
  readonly code: CairnErrorCode;
  /** `message` says what failed and what to do; `cause` is the underlying error, if any. */
  constructor(
    code: CairnErrorCode,
    message: string,
    options?: {
      /** The underlying error. */
      cause?: unknown;
    },
  ) {
    super(message, options);
    this.name = "CairnError";
    this.code = code;
  }
}

export function isCairnError(error: unknown): error is CairnError {
  return error instanceof CairnError;
}
