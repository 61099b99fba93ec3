// A tiny SMTP sink for the console's run: speaks just enough SMTP (220, EHLO/HELO, MAIL FROM,
// RCPT TO, DATA until <CRLF>.<CRLF>, RSET, NOOP, QUIT) to take the server's letters, and appends
// each one as a JSON line ({to, data}) to the file named by --out. run.sh starts it before the
// server (STUDIO_SMTP_URL), so the test can open the links the letters carry, as a person would.
//
//   node smtp-sink.mjs --port 2525 --out /tmp/letters.jsonl

import fs from 'node:fs';
import net from 'node:net';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const port = Number(arg('port') ?? 2525);
const out = arg('out') ?? 'letters.jsonl';

const server = net.createServer((socket) => {
  socket.setEncoding('utf8');
  let buffer = '';
  let inData = false;
  let to = [];
  let data = [];
  const reply = (line) => socket.write(`${line}\r\n`);
  reply('220 sink ESMTP');
  socket.on('data', (chunk) => {
    buffer += chunk;
    let at;
    while ((at = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (inData) {
        if (line === '.') {
          inData = false;
          fs.appendFileSync(out, `${JSON.stringify({ to, data: data.join('\r\n') })}\n`);
          to = [];
          data = [];
          reply('250 OK: kept');
        } else {
          data.push(line.startsWith('..') ? line.slice(1) : line);
        }
        continue;
      }
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO') {
        socket.write('250-sink\r\n250 8BITMIME\r\n');
      } else if (verb === 'HELO') reply('250 sink');
      else if (verb === 'MAIL') {
        to = [];
        reply('250 OK');
      } else if (verb === 'RCPT') {
        to.push((/<([^>]*)>/.exec(line) ?? [])[1] ?? line.slice(8).trim());
        reply('250 OK');
      } else if (verb === 'DATA') {
        inData = true;
        reply('354 end with <CRLF>.<CRLF>');
      } else if (verb === 'RSET') {
        to = [];
        data = [];
        reply('250 OK');
      } else if (verb === 'NOOP') reply('250 OK');
      else if (verb === 'QUIT') {
        reply('221 bye');
        socket.end();
      } else reply('502 not here');
    }
  });
  socket.on('error', () => {});
});

server.listen(port, '127.0.0.1', () => console.log(`smtp sink on 127.0.0.1:${port}, letters to ${out}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
