// studio-bench row 6 baseline: the official TypeScript MCP SDK's stateless Streamable HTTP
// server (the SDK's own simpleStatelessStreamableHttp example: a new McpServer and transport per
// request, Express from createMcpExpressApp), answering one trivial tool, `check_balance`, with
// a JSON body as Studio's endpoint does. Started by studio-bench: `PORT=... node server.mjs`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';

function getServer() {
  const server = new McpServer({ name: 'bench-baseline', version: '1.0.0' });
  server.registerTool(
    'check_balance',
    { title: 'Check balance', description: 'A fixed balance.', annotations: { readOnlyHint: true } },
    async () => {
      const balance = { balance: 100, held: 0 };
      return { content: [{ type: 'text', text: JSON.stringify(balance) }], structuredContent: balance };
    },
  );
  return server;
}

const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', () => {
      transport.close();
      server.close();
    });
  } catch (error) {
    console.error('MCP request failed:', error);
    if (!res.headersSent) {
      res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  }
});

const port = Number(process.env.PORT || 3000);
app.listen(port, '127.0.0.1', (error) => {
  if (error) {
    console.error('listen failed:', error);
    process.exit(1);
  }
});
