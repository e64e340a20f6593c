/** Which configured checkouts of other repositories (config `repos`) anchors may be resolved in. */
import path from "node:path";
import { isInside } from "../store/contain.js";
import { gitTop } from "../store/root.js";

/**
 * Why the checkout at `dir` is not one cairn reads, or undefined when it is: it must be a directory inside the
 * directory that holds this repository (a sibling checkout, or one inside the repository), and not this repository
 * or a directory above it. `"repos": {"x": "/"}` would otherwise have `check` walk the whole file system and say in
 * a pull request comment which files exist on the machine and how many lines they have.
 */
export function checkoutRefusal(root: string, dir: string): string | undefined {
  const top = gitTop(root) ?? root;
  if (!isInside(path.dirname(top), dir)) return "is outside the directory that holds this repository";
  if (isInside(dir, top) || isInside(dir, root)) return "is this repository or a directory above it";
  return undefined;
}
