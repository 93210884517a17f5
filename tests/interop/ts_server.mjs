// A server built with the official TypeScript SDK v2 (npm
// `@modelcontextprotocol/server` 2.4, `McpServer` over stdio), for libmcp's
// client to call (tests/tests/interop_servers.rs). Run from beside the
// installed package (target/interop/ts-server/), as an ES module resolves its
// imports from its own folder.
//
// Usage: node ts_server.mjs ERA
//        node ts_server.mjs ERA http PORT
//
// ERA is `2026` (`serveStdio`: 2026-07-28, and the 2025 handshake from the
// same factory) or `2025` (`McpServer.connect` over a `StdioServerTransport`,
// the 2025-11-25 wiring, which answers `server/discover` with -32601). Over
// HTTP (http://127.0.0.1:PORT/mcp) the server is `createMcpHandler`'s, behind
// a small node:http adapter; at `2025` a request naming a revision without a
// handshake is refused with 400 and no 2026 error (as a 2025 server does),
// and at `2026` the tool `touch` announces a resource update to
// `subscriptions/listen` streams. Offers the tools `add` and
// `ask_name` (not over HTTP at 2025, where the SDK serves statelessly and
// cannot send requests to the client; asks the user for a name with `inputRequired(...)`: an
// input-required round at 2026-07-28, fulfilled with a real elicitation
// request by the SDK's legacy shim at 2025-11-25; "no name" when declined),
// the resource `interop://static` and the prompt `greet`.

import http from 'node:http';
import { McpServer, acceptedContent, createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const [era, transport, port] = process.argv.slice(2);
let handler;

function build() {
const server = new McpServer(
    { name: 'ts-interop-server', version: '2.4.0' },
    { capabilities: { resources: { subscribe: true, listChanged: true } } }
);

server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
);

const nameSchema = z.object({ name: z.string() });
// Its stateless 2025 HTTP serving cannot send the client requests, so no
// tool there asks for input.
if (!(transport === 'http' && era === '2025')) server.registerTool('ask_name', { description: 'Asks the user for a name' }, async (ctx) => {
    const responses = ctx?.mcpReq?.inputResponses;
    if (responses && 'name' in responses) {
        const answer = acceptedContent(responses, 'name', nameSchema);
        return { content: [{ type: 'text', text: answer ? `hello ${answer.name}` : 'no name' }] };
    }
    return inputRequired({
        inputRequests: {
            name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema })
        }
    });
});

server.registerResource(
    'static',
    'interop://static',
    { description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'static content' }] })
);

server.registerPrompt(
    'greet',
    { description: 'Greets someone', argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }] })
);

if (transport === 'http' && era === '2026') {
    server.registerTool(
        'touch',
        { description: 'Announces that a resource changed', inputSchema: { uri: z.string() } },
        async ({ uri }) => {
            handler.notify.resourceUpdated(uri);
            return { content: [{ type: 'text', text: `touched ${uri}` }] };
        }
    );
}
return server;
}

const HANDSHAKE_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

/** Serves `handler.fetch` on node:http, streaming the response body. */
function serveHttp() {
    handler = createMcpHandler(build);
    const server = http.createServer(async (req, res) => {
        const version = req.headers['mcp-protocol-version'];
        if (era === '2025' && version && !HANDSHAKE_VERSIONS.includes(version)) {
            res.writeHead(400, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Unsupported protocol version' } }));
            return;
        }
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
            headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
            method: req.method,
            headers,
            body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks)
        });
        const response = await handler.fetch(request);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (!response.body) {
            res.end();
            return;
        }
        const reader = response.body.getReader();
        // The client closing the response ends the exchange (a cancelled listen).
        res.on('close', () => reader.cancel().catch(() => {}));
        try {
            for (;;) {
                const { done, value } = await reader.read();
                if (done) break;
                res.write(value);
            }
        } catch {
            // The client went away.
        }
        res.end();
    });
    server.listen(Number(port), '127.0.0.1');
}

if (transport === 'http') {
    serveHttp();
} else if (era === '2025') {
    await build().connect(new StdioServerTransport());
} else {
    serveStdio(build);
}
