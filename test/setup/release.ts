/** Run for every test file (vitest.config.ts `setupFiles`): release what the helpers started, after each test. */
import { afterEach } from "vitest";
import { releaseAll } from "../helpers/cleanup.js";

afterEach(releaseAll);
