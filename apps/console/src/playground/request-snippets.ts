/**
 * The playground's request as code a user pastes elsewhere. The token is never written into a
 * snippet: each reads it from the SCRAPING_API_TOKEN environment variable, so a snippet can be
 * shared or committed.
 */
export interface SnippetInput {
  origin: string;
  path: string;
  body: unknown;
}

/** POSIX shell single quotes: everything literal; a ' is closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlSnippet({ origin, path, body }: SnippetInput): string {
  return [
    `curl -sS -X POST ${shellQuote(origin + path)}`,
    `  -H "Authorization: Bearer $SCRAPING_API_TOKEN"`,
    `  -H 'Content-Type: application/json'`,
    `  --data-raw ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n');
}

export function typeScriptSnippet({ origin, path, body }: SnippetInput): string {
  return [
    `const response = await fetch(${JSON.stringify(origin + path)}, {`,
    `  method: 'POST',`,
    `  headers: { Authorization: \`Bearer \${process.env.SCRAPING_API_TOKEN}\`, 'Content-Type': 'application/json' },`,
    `  body: JSON.stringify(${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}),`,
    `});`,
    `if (!response.ok) throw new Error(\`\${response.status}: \${await response.text()}\`);`,
    `const result = await response.json();`,
    `console.log(result.guidance, result.markdown ?? result.html);`,
  ].join('\n');
}

/** Python with the standard library only (urllib): JSON literals become Python literals. */
export function pythonSnippet({ origin, path, body }: SnippetInput): string {
  return [
    'import json, os, urllib.request',
    '',
    `payload = ${pythonLiteral(body, 0)}`,
    'request = urllib.request.Request(',
    `    ${JSON.stringify(origin + path)},`,
    '    data=json.dumps(payload).encode(),',
    '    headers={"Authorization": f"Bearer {os.environ[\'SCRAPING_API_TOKEN\']}", "Content-Type": "application/json"},',
    '    method="POST",',
    ')',
    'with urllib.request.urlopen(request, timeout=330) as response:',
    '    result = json.load(response)',
    'print(result["guidance"], result.get("markdown") or result.get("html"))',
  ].join('\n');
}

export function pythonLiteral(value: unknown, depth: number): string {
  const pad = '    '.repeat(depth + 1);
  const end = '    '.repeat(depth);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'None';
  // A JSON string literal is a valid Python string literal (same escapes) once \u2028/\u2029 are escaped by JSON too.
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + pythonLiteral(v, depth + 1)).join(',\n')},\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${pythonLiteral(v, depth + 1)}`).join(',\n')},\n${end}}`;
}
