// The official TypeScript SDK v2 client (npm @modelcontextprotocol/client),
// in a 2026-07-28 mode, against `mcp serve everything` (ours).
//
// Usage: node ts_client_2026.mjs MODE stdio MCP_BINARY
//        node ts_client_2026.mjs MODE http URL
//
// MODE: `pin` (versionNegotiation {pin: '2026-07-28'}) or `auto`. Prints one
// line per check and a closing "ts 2026 interop: N passed, M failed"; exits
// non-zero on any failure.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, transportKind, target] = process.argv.slice(2);
const SAMPLED = 'Paris, says the TypeScript client';

function expect(condition, message) {
    if (!condition) throw new Error(message);
}

const textOf = result => (result.content ?? []).map(block => block.text ?? '').join('');

const client = new Client(
    { name: 'ts-2026-interop', version: '1.0.0' },
    {
        capabilities: { elicitation: {}, sampling: {} },
        versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : 'auto' }
    }
);
client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Grace', username: 'u', email: 'e@x' }
}));
client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: SAMPLED },
    model: 'ts-2026-model',
    stopReason: 'endTurn'
}));

const checks = {
    async revision() {
        const v = client.getNegotiatedProtocolVersion();
        expect(v === '2026-07-28', `negotiated ${v}`);
    },
    async tools() {
        const listed = await client.listTools();
        const names = listed.tools.map(t => t.name);
        expect(names.includes('add_numbers'), `tools: ${names}`);
        const added = await client.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3 } });
        expect(!added.isError && textOf(added) === '5', `add_numbers: ${JSON.stringify(added)}`);
    },
    async inputRequired() {
        const named = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
        expect(textOf(named) === 'Hello, Grace!', `elicitation round: ${JSON.stringify(named)}`);
        const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'capital?' } });
        expect(textOf(sampled).includes(SAMPLED), `sampling round: ${JSON.stringify(sampled)}`);
    },
    async resourcesAndPrompts() {
        const read = await client.readResource({ uri: 'test://static-text' });
        expect(read.contents.length > 0 && JSON.stringify(read).includes('static text'), `read: ${JSON.stringify(read)}`);
        const prompt = await client.getPrompt({
            name: 'test_prompt_with_arguments',
            arguments: { arg1: 'one', arg2: 'two' }
        });
        expect(JSON.stringify(prompt).includes('one'), `prompt: ${JSON.stringify(prompt)}`);
    }
};

const transport =
    transportKind === 'stdio'
        ? new StdioClientTransport({ command: target, args: ['serve', 'everything'], stderr: 'ignore' })
        : new StreamableHTTPClientTransport(new URL(target));

let passed = 0;
let failed = 0;
try {
    await client.connect(transport);
    for (const [name, check] of Object.entries(checks)) {
        try {
            await check();
            console.log(`ok   ${name}`);
            passed += 1;
        } catch (e) {
            console.log(`FAIL ${name}: ${e?.stack ?? e}`);
            failed += 1;
        }
    }
} catch (e) {
    console.log(`FAIL connect: ${e?.stack ?? e}`);
    failed += 1;
} finally {
    await client.close().catch(() => {});
}
console.log(`ts 2026 interop: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
