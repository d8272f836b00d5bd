#!/usr/bin/env python3
"""kcontract's build against mdBook, Hugo, duvet and StrictDoc on the same text, in one run, paired.

usage: bench/pair_tools.py RUNS DIR [BIN]

DIR holds a spec folder `DIR/spec` (contract.yaml, en/ and zh/ chapters): this repository's root, or a scaled
spec the harness generated (`cargo run --release --example bench -- --copies 10,100` writes target/bench/x10
and x100, each with its mdBook book `mdbook/` and Hugo site `hugo/`). BIN is the kcontract binary (an absolute
path; default target/release/kcontract).

From the English chapters of DIR/spec the script writes each tool's input, under DIR/pair-inputs/ (replaced
whole each time):
- duvet (0.4, `duvet report`): each chapter as a Markdown specification (its prose and headings, each clause's
  text as a paragraph of its section) and one Rust file citing every clause's text under its section
  (`//= spec/CHAPTER.md#SECTION`, `//# TEXT`): requirements and their citations into an HTML report, the work
  `kcontract matrix` and the site's test links do;
- StrictDoc (0.30, `strictdoc export --formats html`): one .sdoc document per chapter, its sections and each
  clause a [REQUIREMENT] with its id, level and text;
- mdBook and Hugo, when DIR has no mdbook/ or hugo/ of the harness: the English chapters as a book, and every
  language's chapters as a Hugo site with a sidebar on every page, as bench/harness.rs writes them.

A tool that is not on PATH is left out, and the script says so. Each round runs every tool once, each into a
removed output folder (untimed removal, then an untimed `sync`), the rounds going through every order of the
tools in turn (what ran just before a process changes its time on these VMs). A tool that fails, or whose
output lacks the first clause (its id; in duvet's report its text), stops the script: its time would measure
no work. Prints each
tool's median and min-max, and its ratio to kcontract's: the ratio of the medians and, in brackets, the median
of the rounds' ratios. Nothing is asserted; figures go in BENCHMARKS.md with the command, date and machine."""
import itertools, os, re, shutil, statistics, subprocess, sys, time

if len(sys.argv) < 3:
    sys.exit(__doc__.split('\n\n')[1])
runs = int(sys.argv[1])
work = os.path.abspath(sys.argv[2])
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
ours = sys.argv[3] if len(sys.argv) > 3 else os.path.join(root, 'target', 'release', 'kcontract')
spec = os.path.join(work, 'spec')
if not os.path.isfile(os.path.join(spec, 'contract.yaml')):
    sys.exit(f'no spec folder in {work} (DIR/spec/contract.yaml)')
if not os.access(ours, os.X_OK):
    sys.exit(f'no kcontract binary at {ours}: cargo build --release --locked')


def chapters():
    """The chapter names of contract.yaml, in order (its `chapters:` list, as the harness reads it)."""
    names, inside = [], False
    for line in open(os.path.join(spec, 'contract.yaml'), encoding='utf-8'):
        if line.startswith('chapters:'):
            inside = True
        elif inside and line.startswith('  - '):
            names.append(line[4:].strip())
        elif inside:
            break
    return names


def clause_fields(block):
    """id, level and text of a ```clause block's YAML (one-line values and folded/literal `text:`)."""
    fields, key = {}, None
    for line in block:
        m = re.match(r'^([a-z_]+):\s*(.*)$', line)
        if m:
            key, value = m.group(1), m.group(2).strip()
            fields[key] = '' if value in ('>-', '>', '|', '|-') else value.strip('"\'')
        elif key and line.startswith(' '):
            fields[key] = (fields[key] + ' ' + line.strip()).strip()
    return fields


def read_chapter(name):
    """A chapter as (title, items): items are ('heading', level, text), ('prose', line) and
    ('clause', fields), in order."""
    items, block, fence = [], None, None
    title = name
    for line in open(os.path.join(spec, 'en', name + '.md'), encoding='utf-8'):
        line = line.rstrip('\n')
        if block is not None:
            if line.startswith('```'):
                items.append(('clause', clause_fields(block)))
                block = None
            else:
                block.append(line)
        elif fence is not None:
            fence = None if line.startswith(fence) else fence
        elif line.startswith('```clause'):
            block = []
        elif line.startswith('```'):
            fence = '```'
        elif re.match(r'^#{1,6} ', line):
            level = len(line) - len(line.lstrip('#'))
            text = line[level:].strip()
            if level == 1:
                title = text
            items.append(('heading', level, text))
        else:
            items.append(('prose', line))
    return title, items


def slug(heading):
    """A heading's anchor as GitHub and duvet's Markdown reader make it."""
    kept = ''.join(c for c in heading.lower() if c.isalnum() or c in ' -_')
    return kept.replace(' ', '-')


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def write_inputs(names, out):
    """duvet's project, StrictDoc's documents and (when DIR has none) the mdBook book, from the
    chapters; the number of clauses written."""
    shutil.rmtree(out, ignore_errors=True)
    own_book = not os.path.isdir(os.path.join(work, 'mdbook'))
    cite, specs, summary, clauses = [], [], ['# Summary', ''], 0
    for name in names:
        title, items = read_chapter(name)
        md, sdoc, section, open_levels = [], [f'[DOCUMENT]\nTITLE: {title}\n'], title, []
        for item in items:
            if item[0] == 'heading':
                _, level, text = item
                md.append('#' * level + ' ' + text)
                section = text
                if level == 1:
                    continue
                while open_levels and open_levels[-1] >= level:
                    open_levels.pop()
                    sdoc.append('[[/SECTION]]\n')
                sdoc.append(f'[[SECTION]]\nTITLE: {text}\n')
                open_levels.append(level)
            elif item[0] == 'prose':
                md.append(item[1])
            else:
                f = item[1]
                text = ' '.join(f.get('text', '').split())
                if not text or not f.get('id'):
                    continue
                clauses += 1
                md.extend(['', text, ''])
                cite.append(f'//= spec/{name}.md#{slug(section)}\n//# {text}\nfn clause_{clauses}() {{}}\n')
                sdoc.append(f"[REQUIREMENT]\nUID: {f['id']}\nTITLE: {f['id']} ({f.get('level', '')})\n"
                            f'STATEMENT: >>>\n{text}\n<<<\n')
        sdoc.extend(['[[/SECTION]]\n'] * len(open_levels))
        write(os.path.join(out, 'duvet', 'spec', name + '.md'), '\n'.join(md) + '\n')
        write(os.path.join(out, 'strictdoc', name + '.sdoc'), '\n'.join(sdoc))
        specs.append(f'[[specification]]\nsource = "spec/{name}.md"\nformat = "markdown"\n')
        if own_book:
            with open(os.path.join(spec, 'en', name + '.md'), encoding='utf-8') as f:
                write(os.path.join(out, 'mdbook', 'src', name + '.md'), f.read())
            summary.append(f'- [{title}](./{name}.md)')
    write(os.path.join(out, 'duvet', 'src', 'lib.rs'), '\n'.join(cite))
    write(os.path.join(out, 'duvet', '.duvet', 'config.toml'),
          '\'$schema\' = "https://awslabs.github.io/duvet/config/v0.4.json"\n\n'
          '[[source]]\npattern = "src/**/*.rs"\n\n' + '\n'.join(specs) +
          f'\n[report.html]\nenabled = true\npath = "{os.path.join(outs, "duvet", "index.html")}"\n\n'
          '[report.snapshot]\nenabled = false\n')
    if own_book:
        write(os.path.join(out, 'mdbook', 'src', 'SUMMARY.md'), '\n'.join(summary) + '\n')
        write(os.path.join(out, 'mdbook', 'book.toml'), '[book]\ntitle = "kcontract benchmark"\n')
    if not os.path.isdir(os.path.join(work, 'hugo')):
        write_hugo(names, os.path.join(out, 'hugo'))
    return clauses


HUGO_PAGE = ('<!doctype html><html lang="{{ .Lang }}"><head><meta charset="utf-8"><title>{{ .Title }}</title>'
             '</head><body>{{ partialCached "sidebar.html" . .Lang }}<main>%s</main></body></html>\n')


def write_hugo(names, out):
    """A Hugo site of every language's chapters, each page with a sidebar of its language's chapters
    (bench/harness.rs's site, for a DIR the harness did not generate)."""
    langs = sorted(d for d in os.listdir(spec) if os.path.isfile(os.path.join(spec, d, names[0] + '.md')))
    config = ['baseURL = "http://localhost/"', 'title = "kcontract benchmark"',
              'disableKinds = ["taxonomy", "term", "RSS", "sitemap"]', 'defaultContentLanguage = "en"',
              'defaultContentLanguageInSubdir = true']
    for weight, lang in enumerate(langs, 1):
        config += [f'[languages.{lang}]', f'contentDir = "content/{lang}"', f'weight = {weight}']
        for n, name in enumerate(names, 1):
            path = os.path.join(spec, lang, name + '.md')
            if not os.path.isfile(path):
                continue
            with open(path, encoding='utf-8') as f:
                body = f.read()
            title = body.split('\n', 1)[0].lstrip('# ').replace('"', "'")
            write(os.path.join(out, 'content', lang, name + '.md'),
                  f'---\ntitle: "{title}"\nweight: {n}\n---\n\n{body}')
    write(os.path.join(out, 'config.toml'), '\n'.join(config) + '\n')
    write(os.path.join(out, 'layouts', 'partials', 'sidebar.html'),
          '<nav><ol>{{ range .Site.RegularPages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>'
          '{{ end }}</ol></nav>\n')
    write(os.path.join(out, 'layouts', '_default', 'single.html'), HUGO_PAGE % '{{ .Content }}')
    write(os.path.join(out, 'layouts', '_default', 'list.html'),
          HUGO_PAGE % '<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>')


names = chapters()
inputs = os.path.join(work, 'pair-inputs')
outs = os.path.join(work, 'pair-out')
book = os.path.join(work, 'mdbook') if os.path.isdir(os.path.join(work, 'mdbook')) else os.path.join(inputs, 'mdbook')
site = os.path.join(work, 'hugo') if os.path.isdir(os.path.join(work, 'hugo')) else os.path.join(inputs, 'hugo')
clauses = write_inputs(names, inputs)
# name: (tool on PATH or None, folder it runs in, command, output folder removed before each run,
#        a file of the output that must exist after the first run)
tools = {
    'kcontract build': (None, work, [ours, 'build', '--out', os.path.join(outs, 'kcontract')],
                        os.path.join(outs, 'kcontract'), 'en/index.html'),
    'mdbook build (en)': ('mdbook', book, ['mdbook', 'build', '-d', os.path.join(outs, 'mdbook')],
                          os.path.join(outs, 'mdbook'), 'index.html'),
    'hugo (every language)': ('hugo', site, ['hugo', '--quiet', '-d', os.path.join(outs, 'hugo')],
                              os.path.join(outs, 'hugo'), 'index.html'),
    'duvet report': ('duvet', os.path.join(inputs, 'duvet'), ['duvet', 'report'],
                     os.path.join(outs, 'duvet'), 'index.html'),
    'strictdoc export': ('strictdoc', os.path.join(inputs, 'strictdoc'),
                         ['strictdoc', 'export', '--formats', 'html', '--output-dir', os.path.join(outs, 'strictdoc'),
                          '.'], os.path.join(outs, 'strictdoc'), 'html/index.html'),
}
for name, (exe, cwd, *_rest) in list(tools.items()):
    if exe and not shutil.which(exe):
        print(f'{name}: left out, `{exe}` is not on PATH')
        del tools[name]
    elif not os.path.isdir(cwd):
        print(f'{name}: left out, no input at {cwd}')
        del tools[name]


def version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
        return out.splitlines()[0] if out else '?'
    except OSError:
        return '?'


print(f'input: {work}/spec, {len(names)} chapters, {clauses} clauses; {runs} rounds')
for name, (exe, *_rest) in tools.items():
    # duvet 0.4 has no --version: `cargo install --list` names the version installed.
    cmd = ([ours, '-V'] if exe is None else ['sh', '-c', 'cargo install --list | grep "^duvet "']
           if exe == 'duvet' else [exe, 'version' if exe == 'hugo' else '--version'])
    print(f'  {name}: {version(cmd)}')
orders = list(itertools.permutations(tools))
times = {name: [] for name in tools}
for i in range(runs):
    for name in orders[i % len(orders)]:
        _exe, cwd, cmd, clean, must = tools[name]
        shutil.rmtree(clean, ignore_errors=True)
        os.sync()
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times[name].append((time.perf_counter() - start) * 1000)
        if done.returncode != 0:
            sys.exit(f'{name} failed ({done.returncode}) in {cwd}:\n{done.stderr.decode(errors="replace")[-2000:]}')
        if i == 0 and not os.path.isfile(os.path.join(clean, must)):
            sys.exit(f'{name} wrote no {must} in {clean}: it did not do the work timed')
# Each output holds the first clause (its id; duvet's report, which has no ids, its text's first words):
# the tool read the text it was given.
first = next(item[1] for name in names for item in read_chapter(name)[1]
             if item[0] == 'clause' and item[1].get('id') and item[1].get('text'))
for name, (_exe, _cwd, _cmd, clean, _must) in tools.items():
    needle = ' '.join(first['text'].split()[:4]) if name.startswith('duvet') else first['id']
    found = any(needle in open(os.path.join(d, f), encoding='utf-8', errors='replace').read()
                for d, _, fs in os.walk(clean) for f in fs)
    print(f'  {name}: its output {"holds" if found else "DOES NOT HOLD"} {needle!r}')
    if not found:
        sys.exit(f'{name} did not render the text it was given: its time would measure no work')
k = times.get('kcontract build', [])
for name, t in times.items():
    line = f'{name:20s} median {statistics.median(t):9.1f} ms  [{min(t):.1f}-{max(t):.1f}]'
    if name != 'kcontract build' and k:
        line += (f'  kcontract / it: {statistics.median(k) / statistics.median(t):.2f}'
                 f' ({statistics.median(a / b for a, b in zip(k, t)):.2f})')
    print(line)
