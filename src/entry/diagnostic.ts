/** A problem found in a file: the vfile-message shape, trimmed to what cairn needs. */
export type Severity = "error" | "warning";

export type Diagnostic = {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** Stable rule id, e.g. `yaml-invalid`, `anchor-unresolved`, `secret-aws-access-key`. */
  rule: string;
  /** `error` fails `cairn check`; `warning` does only with `--strict`. */
  severity: Severity;
  /** What is wrong and what was expected. */
  message: string;
  /** A one-line form for agents and status rows, when the rule has one (anchor drift: `src/x.ts:52-61 — the cited lines moved to 92-101`). */
  short?: string;
};

export function diagnostic(
  file: string,
  rule: string,
  severity: Severity,
  message: string,
  position: {
    /** 1-based line. */
    line: number;
    /** 1-based column. */
    column: number;
  } = { line: 1, column: 1 },
): Diagnostic {
  return { file, line: position.line, column: position.column, rule, severity, message };
}

/** Sort by file, line, column, rule: deterministic output for humans and snapshots. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) =>
      a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule),
  );
}
