/** Strings numbered in first-seen order: the fold's interned run keys, agents, entry ids and finding hashes. */

/** Strings numbered in first-seen order; from a snapshot, loaded on first use. */
export class Table {
  #list: string[] | undefined;
  #index: Map<string, number> | undefined;
  #load: (() => readonly string[]) | undefined;

  constructor(list: readonly string[] | (() => readonly string[]) = []) {
    if (typeof list === "function") this.#load = list;
    else this.#fill(list);
  }

  /** False while a table from a snapshot has not been needed yet. */
  get loaded(): boolean {
    return this.#list !== undefined;
  }

  /** Every string, by number. */
  get list(): readonly string[] {
    return this.#ready().list;
  }

  no(value: string): number {
    const { list, index } = this.#ready();
    let n = index.get(value);
    if (n === undefined) {
      n = list.length;
      list.push(value);
      index.set(value, n);
    }
    return n;
  }

  find(value: string): number | undefined {
    return this.#ready().index.get(value);
  }

  at(n: number): string {
    return this.#ready().list[n] as string;
  }

  #fill(list: readonly string[]): void {
    this.#list = [];
    this.#index = new Map();
    for (const value of list) {
      if (!this.#index.has(value)) this.#index.set(value, this.#list.length);
      this.#list.push(value);
    }
  }

  #ready(): { list: string[]; index: Map<string, number> } {
    if (this.#list === undefined) {
      this.#fill((this.#load as () => readonly string[])());
      this.#load = undefined;
    }
    return { list: this.#list as string[], index: this.#index as Map<string, number> };
  }
}
