/** A local stand-in for the few GitHub REST routes the action calls (issue comments), recording every request. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Comment = { id: number; body: string; html_url: string; user: { login: string; type: "User" | "Bot" } };
export type Recorded = { method: string; url: string; authorization: string | undefined; apiVersion: string | undefined; body: unknown };

export type FakeGitHub = {
  url: string;
  comments: Comment[];
  requests: Recorded[];
  /** Answer every request with this status instead (e.g. 403 for a read-only token). */
  failWith: number | undefined;
  close: () => Promise<void>;
};

/** Serve GET/POST `/repos/:owner/:repo/issues/:n/comments`, PATCH `/repos/:owner/:repo/issues/comments/:id` and GET `/user` (403, as for the job's token) on 127.0.0.1. */
export async function fakeGitHub(repository: string, pullRequest: number): Promise<FakeGitHub> {
  let nextId = 1000;
  const state: FakeGitHub = { url: "", comments: [], requests: [], failWith: undefined, close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = text ? (JSON.parse(text) as { body?: string }) : undefined;
    state.requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, apiVersion: req.headers["x-github-api-version"] as string | undefined, body });
    const send = (status: number, value: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (state.failWith) return send(state.failWith, { message: "Resource not accessible by integration" });
    const url = new URL(req.url ?? "/", "http://localhost");
    const list = `/repos/${repository}/issues/${pullRequest}/comments`;
    // The job's token has no user: GitHub answers this route 403 for it.
    if (url.pathname === "/user" && req.method === "GET") return send(403, { message: "Resource not accessible by integration" });
    const one = new RegExp(`^/repos/${repository}/issues/comments/(\\d+)$`).exec(url.pathname);
    if (url.pathname === list && req.method === "GET") {
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      const page = Number(url.searchParams.get("page") ?? 1);
      return send(200, state.comments.slice((page - 1) * perPage, page * perPage));
    }
    if (url.pathname === list && req.method === "POST") {
      const comment = { id: nextId++, body: body?.body ?? "", html_url: `https://example.test/${repository}/pull/${pullRequest}#issuecomment-${nextId}`, user: { login: "github-actions[bot]", type: "Bot" as const } };
      state.comments.push(comment);
      return send(201, comment);
    }
    if (one && req.method === "PATCH") {
      const comment = state.comments.find((c) => c.id === Number(one[1]));
      if (!comment) return send(404, { message: "Not Found" });
      comment.body = body?.body ?? "";
      return send(200, comment);
    }
    return send(404, { message: `no route ${req.method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
