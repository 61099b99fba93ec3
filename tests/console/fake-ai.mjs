// A fake AI reader for the assistant's browser test: an OpenAI-compatible `POST /v1/chat/completions`
// that answers every chat turn with a reply and one proposed develop (an upscale at 1k of the first
// library asset the studio's context names), so the console's propose-then-Apply path runs without
// a real model. Any other read (a DNA read, a lane) gets an empty object, which the studio refuses
// as bad output, charging nothing.
//
//   node fake-ai.mjs --port 4010

import http from 'node:http';

const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 4010);

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const asset = body.match(/ast_[0-9a-f]{32}/)?.[0];
      const chat = /reply/.test(body) && /handoff/.test(body);
      const answer = chat
        ? {
            reply: asset ? 'I can upscale your newest image at 1k. Apply to start it.' : 'Upload an image first.',
            actions: asset
              ? [{ kind: 'develop', summary: 'Upscale your newest image at 1k', request: { tool: 'upscale', quality: '1k', inputs: { image: asset } } }]
              : [],
            handoff: false,
          }
        : {};
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: JSON.stringify(answer) } }] }));
    });
  })
  .listen(port, '127.0.0.1');
