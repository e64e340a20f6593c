/** A snapshot body (state-codec.ts): JSON texts one after another, each located by an [offset, length] section. */

/** [offset, length] of a JSON text in the body. */
export type Section = [offset: number, length: number];

/** A body being written. */
export class Body {
  readonly chunks: Buffer[] = [];
  length = 0;

  add(bytes: Buffer): Section {
    this.chunks.push(bytes);
    this.length += bytes.length;
    return [this.length - bytes.length, bytes.length];
  }

  json(value: unknown): Section {
    return this.text(JSON.stringify(value));
  }

  text(json: string): Section {
    return this.add(Buffer.from(json));
  }
}

/** The JSON text at `section` of `body`, parsed. */
export function parseAt<T>(body: Buffer, [offset, length]: Section): T {
  return JSON.parse(body.toString("utf8", offset, offset + length)) as T;
}
