/**
 * Compile-time checks that a zod schema and the plain public type it validates agree in both
 * directions, so neither can change without the other (`tsc` fails). Internal: not exported by
 * src/index.ts, so the public declarations never mention zod.
 */

/** True only when A and B are the same type (not merely assignable one way). */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Fails to compile unless T is `true`: `type _ = Assert<Equals<z.output<typeof schema>, Plain>>`. */
export type Assert<T extends true> = T;

/** An object type without its index signature (a `.passthrough()` schema's output has one; the plain type names the known keys). */
export type KnownKeys<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
