// A local HTTP server speaking the OpenAI chat-completions wire format, replying from a script.
// (Stand-in until the extraction issue's shared test servers exist.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedServer {
  url: string;
  requests: Array<{ system: string; user: string }>;
  close(): Promise<void>;
}

export async function scriptedOpenAi(reply: (user: string) => string): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { messages: Array<{ role: string; content: string }> };
      const system = parsed.messages.find((m) => m.role === 'system')?.content ?? '';
      const user = parsed.messages.find((m) => m.role === 'user')?.content ?? '';
      requests.push({ system, user });
      const content = reply(user);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: 'scripted', choices: [{ message: { content }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}
