// A fake AI reader for the assistant's and the brand's browser tests: an OpenAI-compatible
// `POST /v1/chat/completions` that answers every chat turn with a reply and one proposed develop
// (an upscale at 1k of the first library asset the studio's context names), so the console's
// propose-then-Apply path runs without a real model; a turn whose message asks to be handed to a
// person ("hand me to a person") is answered with `handoff: true`, so the escalation shows. A
// brand DNA read gets a small valid profile (so a paid second read can be charged). Any other
// read (a lane) gets an empty object, which the studio refuses as bad output, charging nothing.
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
      const dna = !chat && /visionEn/.test(body) && /signatureKeywords/.test(body);
      // The person's newest message: the last user message of the request.
      let last = '';
      try {
        const users = (JSON.parse(body).messages ?? []).filter((m) => m.role === 'user');
        last = JSON.stringify(users[users.length - 1]?.content ?? '');
      } catch {
        last = '';
      }
      const answer = chat
        ? /hand me to a person/i.test(last)
          ? { reply: 'A person from support will take this from here.', actions: [], handoff: true }
          : {
              reply: asset ? 'I can upscale your newest image at 1k. Apply to start it.' : 'Upload an image first.',
              actions: asset
                ? [{ kind: 'develop', summary: 'Upscale your newest image at 1k', request: { tool: 'upscale', quality: '1k', inputs: { image: asset } } }]
                : [],
              handoff: false,
            }
        : dna
          ? {
              visionEn: 'Quiet tailoring in chalk and ink.',
              vibe: ['calm', 'austere'],
              palette: ['#1a1a1a', 'ivory'],
              signatureKeywords: [{ category: 'cut', phrase: 'raw hems' }],
            }
          : {};
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: JSON.stringify(answer) } }] }));
    });
  })
  .listen(port, '127.0.0.1');
