/** Strings numbered in first-seen order: the fold's interned run keys, agents, entry ids and finding hashes. */

/** Strings numbered in first-seen order; from a snapshot, loaded on first use. */
export class Table {
  #list: string[] = [];
  #index = new Map<string, number>();
  #load: (() => readonly string[]) | undefined;

  constructor(list: readonly string[] | (() => readonly string[]) = []) {
    if (typeof list === "function") this.#load = list;
    else this.#fill(list);
  }

  /** False while a table from a snapshot has not been needed yet. */
  get loaded(): boolean {
    return this.#load === undefined;
  }

  /** Every string, by number. */
  get list(): readonly string[] {
    if (this.#load !== undefined) this.#ready();
    return this.#list;
  }

  no(value: string): number {
    if (this.#load !== undefined) this.#ready();
    let n = this.#index.get(value);
    if (n === undefined) {
      n = this.#list.length;
      this.#list.push(value);
      this.#index.set(value, n);
    }
    return n;
  }

  find(value: string): number | undefined {
    if (this.#load !== undefined) this.#ready();
    return this.#index.get(value);
  }

  at(n: number): string {
    if (this.#load !== undefined) this.#ready();
    return this.#list[n] as string;
  }

  #fill(list: readonly string[]): void {
    for (const value of list) {
      if (!this.#index.has(value)) this.#index.set(value, this.#list.length);
      this.#list.push(value);
    }
  }

  #ready(): void {
    const load = this.#load as () => readonly string[];
    this.#load = undefined;
    this.#fill(load());
  }
}
