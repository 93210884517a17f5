// A server built with the official TypeScript SDK v2 (npm
// `@modelcontextprotocol/server` 2.4, `McpServer` over stdio), for libmcp's
// client to call (tests/tests/interop_servers.rs). Run from beside the
// installed package (target/interop/ts-server/), as an ES module resolves its
// imports from its own folder.
//
// Usage: node ts_server.mjs ERA
//
// ERA is `2026` (`serveStdio`: 2026-07-28, and the 2025 handshake from the
// same factory) or `2025` (`McpServer.connect` over a `StdioServerTransport`,
// the 2025-11-25 wiring, which answers `server/discover` with -32601). Offers the tools `add` and
// `ask_name` (asks the user for a name with `inputRequired(...)`: an
// input-required round at 2026-07-28, fulfilled with a real elicitation
// request by the SDK's legacy shim at 2025-11-25; "no name" when declined),
// the resource `interop://static` and the prompt `greet`.

import { McpServer, inputRequired, acceptedContent } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function build() {
const server = new McpServer({ name: 'ts-interop-server', version: '2.4.0' });

server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
);

const nameSchema = z.object({ name: z.string() });
server.registerTool('ask_name', { description: 'Asks the user for a name' }, async (ctx) => {
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

return server;
}

if (process.argv[2] === '2025') {
    await build().connect(new StdioServerTransport());
} else {
    serveStdio(build);
}
