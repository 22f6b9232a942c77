#!/usr/bin/env node
// `npm run docs:check` (CI runs it): the repository's documents lead somewhere.
//   1. Every relative link in every Markdown file of the repository names a file or folder that
//      exists, and its #anchor a heading of that file (GitHub's slugs, github-slugger).
//   2. Every "spec N.N" citation in the code, tests and documents names a section of
//      docs/spec/scraping-api-spec.md, and every "operator contract §N" one of
//      docs/spec/operator-contract.md, so a citation a reader follows never dead-ends.
// Markdown is read with markdown-it (links in code are not links); exits 1 listing every problem.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const MarkdownIt = require('markdown-it');

const root = path.resolve(__dirname, '..');
const markdown = new MarkdownIt({ html: true });

/** Files git knows or would add (tracked and untracked, .gitignore honoured), optionally by pathspec. */
function repositoryFiles(...pathspecs) {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', ...pathspecs], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && fs.existsSync(path.join(root, f)));
}

/** The text of an inline token as GitHub slugs it (code spans keep their content, markup drops). */
function inlineText(token) {
  return (token.children ?? []).map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : '')).join('');
}

function parse(file, Slugger) {
  const tokens = markdown.parse(fs.readFileSync(path.join(root, file), 'utf8'), {});
  const slugger = new Slugger();
  const anchors = new Set();
  const links = [];
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') anchors.add(slugger.slug(inlineText(tokens[i + 1])));
    if (token.type === 'html_block' || token.type === 'html_inline') {
      for (const m of token.content.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
    }
    for (const child of token.children ?? []) {
      if (child.type === 'link_open' || child.type === 'image') {
        const href = child.attrGet(child.type === 'image' ? 'src' : 'href');
        if (href) links.push({ href, line: (token.map?.[0] ?? 0) + 1 });
      }
    }
  });
  return { anchors, links };
}

function checkLinks(Slugger) {
  const problems = [];
  const parsed = new Map();
  const of = (file) => {
    if (!parsed.has(file)) parsed.set(file, parse(file, Slugger));
    return parsed.get(file);
  };
  // The vendored corpus keeps its upstream files as they came; they are data, not our documents.
  const files = repositoryFiles('*.md').filter((f) => !f.startsWith('test/fixtures/'));
  for (const file of files) {
    for (const { href, line } of of(file).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // http(s), mailto: not checked offline
      const [target, anchor] = href.split('#');
      const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURIComponent(target))) : file;
      const where = `${file}:${line}: ${href}`;
      if (resolved.startsWith('..') || !fs.existsSync(path.join(root, resolved))) {
        problems.push(`${where}: no such file in the repository`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !of(resolved).anchors.has(anchor))
        problems.push(`${where}: no heading #${anchor} in ${resolved}`);
    }
  }
  return { problems, files: files.length };
}

/** Section numbers of a spec document: "## 5." and "### 2.14" headings, and the numbered items of a top-level section (5.7). */
function sectionsOf(file) {
  const sections = new Set();
  let top = null;
  for (const line of fs.readFileSync(path.join(root, file), 'utf8').split('\n')) {
    const heading = /^#{2,4} (\d+(?:\.\d+)*)\.? /.exec(line);
    if (heading) {
      sections.add(heading[1]);
      if (!heading[1].includes('.')) top = heading[1];
      continue;
    }
    const item = /^(\d+)\. /.exec(line);
    if (item && top) sections.add(`${top}.${item[1]}`);
  }
  return sections;
}

function checkCitations() {
  const spec = sectionsOf('docs/spec/scraping-api-spec.md');
  const contract = sectionsOf('docs/spec/operator-contract.md');
  const problems = [];
  const files = repositoryFiles(
    'apps',
    'libs',
    'bench',
    'test',
    'scripts',
    'sdk/src',
    'docs',
    'README.md',
    'k8s',
    'deploy',
    'prisma',
  ).filter(
    (f) =>
      /\.(ts|js|mjs|md|yaml|yml|sql|prisma|json)$/.test(f) &&
      !f.startsWith('docs/spec/') &&
      !f.startsWith('test/fixtures/') &&
      !f.includes('/generated/'),
  );
  let citations = 0;
  for (const file of [...files, 'sdk/openapi.json']) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      for (const m of text.matchAll(/\bspec(?: section)? (\d+(?:\.\d+)?)((?:\s*(?:\/|,|and|or)\s*\d+(?:\.\d+)?)*)/gi)) {
        for (const section of [m[1], ...(m[2].match(/\d+(?:\.\d+)?/g) ?? [])]) {
          citations += 1;
          if (!spec.has(section)) problems.push(`${file}:${i + 1}: "spec ${section}" is no section of docs/spec/scraping-api-spec.md`);
        }
      }
      for (const m of text.matchAll(/operator contract §\s?(\d+(?:\.\d+)?)/gi)) {
        citations += 1;
        if (!contract.has(m[1]))
          problems.push(`${file}:${i + 1}: "operator contract §${m[1]}" is no section of docs/spec/operator-contract.md`);
      }
    });
  }
  return { problems, citations };
}

async function main() {
  const { default: Slugger } = await import('github-slugger');
  const links = checkLinks(Slugger);
  const citations = checkCitations();
  const problems = [...links.problems, ...citations.problems];
  if (problems.length > 0) {
    console.error(`docs:check found ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`docs:check: every relative link of ${links.files} Markdown files and all ${citations.citations} spec citations resolve`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { sectionsOf };
