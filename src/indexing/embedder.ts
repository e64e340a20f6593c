/** The embedder interface every provider implements. Providers are loaded lazily. */

export type Embedder = {
  /** Stable id recorded in the index manifest, e.g. `use-lite@1` or `transformers:Xenova/all-MiniLM-L6-v2`. */
  readonly id: string;
  /** Vector dimensions. */
  readonly dims: number;
  /** Embed texts; returns one L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Release model resources. */
  close?(): Promise<void>;
};
