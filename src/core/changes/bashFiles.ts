// The files a bash command names as written, moved or deleted: redirections (`> f`, `>> f`, `&> f`),
// and the file arguments of the usual file-changing commands (tee, touch, rm, mv, cp, sed -i, perl -i,
// truncate, dd of=, git mv/rm/restore/checkout --). A reading of the words, never a shell: expansions,
// globs and anything computed are skipped, so what it finds is what the command plainly names.

export type BashFileOp = 'write' | 'delete' | 'move';

export interface BashFile {
  path: string;
  op: BashFileOp;
}

interface Word {
  text: string;
  /** The word had quotes, escapes or expansions: `text` is only known when `literal`. */
  literal: boolean;
}

/** A word whose text is not known without a shell (expansions, globs). */
const NOT_LITERAL = '\u0000';
const SEPARATORS = new Set([';', '&&', '||', '|', '&', '\n', '(', ')', '{', '}', '|&']);
const REDIRECT = /^(\d*|&)(>>?|>\||<>)(.*)$/;

interface HereDoc {
  delim: string;
  /** `<<-`: leading tabs are stripped from its lines. */
  strip: boolean;
}

/** Skips the bodies of `docs` from `at` (the start of the line after their command), each up to its delimiter line; returns where the command line goes on. */
function afterHereDocs(cmd: string, at: number, docs: HereDoc[]): number {
  for (const h of docs) {
    for (;;) {
      const nl = cmd.indexOf('\n', at);
      const line = cmd.slice(at, nl < 0 ? cmd.length : nl);
      at = nl < 0 ? cmd.length : nl + 1;
      if ((h.strip ? line.replace(/^\t+/, '') : line) === h.delim || nl < 0) break;
    }
  }
  return at;
}

/**
 * Words of each simple command of a command line (quotes removed; a word with `$`, backquotes or glob
 * characters becomes NOT_LITERAL). Here-document bodies are skipped: they are data, not commands.
 */
function words(cmd: string): string[][] {
  const commands: Word[][] = [[]];
  let cur = '';
  let has = false;
  let literal = true;
  const heredocs: HereDoc[] = [];
  const end = () => {
    if (has) {
      const list = commands[commands.length - 1];
      const prev = list[list.length - 1];
      // the word after `<<` / `<<-` names a here-document's end
      if (prev && (prev.text === '<<' || prev.text === '<<-'))
        heredocs.push({ delim: cur, strip: prev.text === '<<-' });
      list.push({ text: cur, literal });
    }
    cur = '';
    has = false;
    literal = true;
  };
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i];
    if (c === '\\' && i + 1 < cmd.length) {
      if (cmd[i + 1] !== '\n') cur += cmd[++i];
      else i++;
      has = true;
    } else if (c === "'") {
      const j = cmd.indexOf("'", i + 1);
      if (j < 0) return []; // unbalanced: not a command line worth reading
      cur += cmd.slice(i + 1, j);
      has = true;
      i = j;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < cmd.length && cmd[j] !== '"'; j++) {
        if (cmd[j] === '\\' && j + 1 < cmd.length) cur += cmd[++j];
        else {
          if (cmd[j] === '$' || cmd[j] === '`') literal = false;
          cur += cmd[j];
        }
      }
      if (j >= cmd.length) return [];
      has = true;
      i = j;
    } else if (c === '#' && !has) {
      const nl = cmd.indexOf('\n', i);
      if (nl < 0) break;
      i = nl - 1;
    } else if (c === ' ' || c === '\t') {
      end();
    } else if (c === '<' && !has && cmd[i + 1] === '<' && cmd[i + 2] !== '<') {
      end();
      const strip = cmd[i + 2] === '-';
      cur = strip ? '<<-' : '<<';
      has = true;
      i += strip ? 2 : 1;
      end();
    } else if (
      SEPARATORS.has(c) &&
      !(c === '&' && (cmd[i + 1] === '>' || cur.endsWith('>'))) &&
      !(c === '|' && cur.endsWith('>'))
    ) {
      end();
      if ((c === '&' || c === '|') && cmd[i + 1] === c) i++;
      if (c === '\n' && heredocs.length) i = afterHereDocs(cmd, i + 1, heredocs.splice(0)) - 1;
      commands.push([]);
    } else {
      if (c === '$' || c === '`' || c === '*' || c === '?' || c === '[') literal = false;
      // `>file` without a space: the operator is a word of its own
      if (c === '>' && !has) {
        cur += c;
        has = true;
        if (cmd[i + 1] === '>' || cmd[i + 1] === '|') cur += cmd[++i];
        end();
        continue;
      }
      cur += c;
      has = true;
    }
  }
  end();
  return commands.filter((w) => w.length).map((ws) => ws.map((w) => (w.literal ? w.text : NOT_LITERAL)));
}

const WRAPPERS = new Set(['sudo', 'env', 'command', 'time', 'nice', 'nohup', 'exec', 'xargs']);

function isFileWord(w: string | undefined): w is string {
  return (
    !!w &&
    w !== NOT_LITERAL &&
    !w.startsWith('-') &&
    !w.startsWith('/dev/') &&
    w !== '/dev/null' &&
    !w.includes('\u0000')
  );
}

/** Files a bash command writes, moves or deletes, in the order named (each path once). */
export function bashFiles(command: string): BashFile[] {
  const out: BashFile[] = [];
  const seen = new Set<string>();
  const add = (path: string | undefined, op: BashFileOp) => {
    if (!isFileWord(path) || seen.has(`${op}\u0000${path}`)) return;
    seen.add(`${op}\u0000${path}`);
    out.push({ path, op });
  };
  if (command.length > 100_000) return out;
  for (const raw of words(command)) {
    const ws = withoutRedirections(raw, add);
    let k = 0;
    while (k < ws.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(ws[k]) || WRAPPERS.has(ws[k]))) k++;
    commandFiles(ws[k]?.split('/').pop(), ws.slice(k + 1), add);
  }
  return out;
}

type Add = (path: string | undefined, op: BashFileOp) => void;

/** The words of a simple command without its redirections (anywhere in it), whose targets go to `add`. */
function withoutRedirections(raw: string[], add: Add): string[] {
  const ws: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const m = REDIRECT.exec(raw[i]);
    if (m && raw[i] !== NOT_LITERAL) {
      const target = m[3] || raw[++i];
      if (m[3]?.startsWith('&')) continue; // 2>&1
      add(target, 'write');
      continue;
    }
    ws.push(raw[i]);
  }
  return ws;
}

/** The files the command `name` with arguments `args` writes, moves or deletes, to `add`. */
function commandFiles(name: string | undefined, args: string[], add: Add): void {
  const plain = args.filter((a) => !a.startsWith('-'));
  switch (name) {
    case 'tee':
    case 'touch':
    case 'truncate':
      for (const a of plain) add(a, 'write');
      break;
    case 'rm':
    case 'unlink':
      for (const a of plain) add(a, 'delete');
      break;
    case 'mv':
      if (plain.length >= 2) {
        for (const a of plain.slice(0, -1)) add(a, 'move');
        add(plain[plain.length - 1], 'write');
      }
      break;
    case 'cp':
    case 'install':
      if (plain.length >= 2) add(plain[plain.length - 1], 'write');
      break;
    case 'sed':
    case 'perl':
      if (args.some((a) => /^-[A-Za-z]*i/.test(a) || a.startsWith('--in-place'))) {
        // The script is the first plain word unless given with -e/-f (the word after the flag).
        const scripted = args.some((a) => a === '-e' || a === '-f' || a === '--expression');
        const files: string[] = [];
        for (let i = 0; i < args.length; i++) {
          if (args[i] === '-e' || args[i] === '-f' || args[i] === '--expression') i++;
          else if (!args[i].startsWith('-')) files.push(args[i]);
        }
        for (const a of scripted ? files : files.slice(1)) add(a, 'write');
      }
      break;
    case 'dd':
      for (const a of args) if (a.startsWith('of=')) add(a.slice(3), 'write');
      break;
    case 'git': {
      const sub = plain[0];
      const rest = plain.slice(1);
      if (sub === 'rm') for (const a of rest) add(a, 'delete');
      else if (sub === 'mv' && rest.length >= 2) {
        for (const a of rest.slice(0, -1)) add(a, 'move');
        add(rest[rest.length - 1], 'write');
      } else if (sub === 'restore') for (const a of rest) add(a, 'write');
      else if (sub === 'checkout') {
        const dd = args.indexOf('--');
        if (dd >= 0) for (const a of args.slice(dd + 1)) add(a, 'write');
      }
      break;
    }
  }
}
