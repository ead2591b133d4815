import { UsageError } from '../errors.js';
import { EXEC_OPTIONS, helpOf, MAIN_ONLY, metavarOf, offeredValues, OPTIONS, type OptionDef } from './options.js';

/**
 * `sling completions SHELL`: completion scripts for bash, zsh, fish and PowerShell, made from the
 * option table (loaded only for this command). They complete the flags of the main command and
 * of `sling exec`, the values of a flag that has a fixed set (`--pretty`, `--style`, `--auth-type`,
 * ...: the table's choices), file names for a flag that takes a file, and file names after `@` in
 * request items (`@body.json`, `field=@file`, `photo@me.jpg`).
 */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
type Shell = (typeof SHELLS)[number];

const SUBCOMMANDS = ['exec', 'completions', 'help'];

/** The fixed values a flag takes (its choices in the table), if any. */
export function optionValues(o: OptionDef): readonly string[] | undefined {
  return o.kind === 'value' ? offeredValues(o) : undefined;
}

/** Does the flag take a file name (metavar FILE or PATH, alone or among fixed values)? */
function takesFile(o: OptionDef): boolean {
  const metavar = metavarOf(o);
  return (o.kind === 'value' && /(^|\|)(FILE|PATH)$/.test(metavar)) || /\|PATH$/.test(metavar);
}

const names = (o: OptionDef): string[] => [`--${o.long}`, ...(o.short ? [`-${o.short}`] : []), ...(o.aliases ?? []).map((a) => `-${a}`)];
const negatable = (o: OptionDef): boolean => o.kind === 'flag' && o.long !== 'help' && o.long !== 'version';

function allOptions(): OptionDef[] {
  return [...OPTIONS, ...EXEC_OPTIONS];
}

export function completionScript(args: readonly string[]): string {
  const shell = args[0];
  if (args.length !== 1 || !SHELLS.includes(shell as Shell)) {
    throw new UsageError(args.length ? `no completions for '${args.join(' ')}'` : 'sling completions needs a shell', `sling completions ${SHELLS.join('|')}`);
  }
  switch (shell as Shell) {
    case 'bash':
      return bash();
    case 'zsh':
      return zsh();
    case 'fish':
      return fish();
    case 'powershell':
      return powershell();
  }
}

function bash(): string {
  const main = OPTIONS.flatMap((o) => [...names(o), ...(negatable(o) ? [`--no-${o.long}`] : [])]);
  const exec = [...OPTIONS.filter((o) => !MAIN_ONLY.includes(o.long)), ...EXEC_OPTIONS].flatMap((o) => [...names(o), ...(negatable(o) ? [`--no-${o.long}`] : [])]);
  const valueCases: string[] = [];
  const fileFlags: string[] = [];
  const valueFlags: string[] = [];
  for (const o of allOptions()) {
    if (o.kind !== 'value') continue;
    const values = optionValues(o);
    const file = takesFile(o);
    if (values) valueCases.push(`    ${names(o).join('|')}) _sling_reply "${values.join(' ')}" "$cur" ${file ? 1 : 0}; return 0 ;;`);
    else if (file) fileFlags.push(...names(o));
    else valueFlags.push(...names(o));
  }
  return `# bash completion for sling and slings (made by: sling completions bash)
# Load it from ~/.bashrc: source <(sling completions bash)

_sling_reply() {
  # $1: words to offer, $2: the word typed so far, $3: 1 to offer file names too
  local IFS=$' \\t\\n'
  COMPREPLY=($(compgen -W "$1" -- "$2"))
  IFS=$'\\n'
  if [[ $3 == 1 ]]; then COMPREPLY+=($(compgen -f -- "$2")); fi
}

_sling_files() {
  # file names after the prefix $1 (the part up to and including @), for the path typed $2
  local IFS=$'\\n' f
  COMPREPLY=()
  for f in $(compgen -f -- "$2"); do
    if [[ -d $f ]]; then f+=/; fi
    COMPREPLY+=("$1$f")
  done
  if [[ \${#COMPREPLY[@]} == 1 && \${COMPREPLY[0]} == */ ]] && type compopt >/dev/null 2>&1; then compopt -o nospace 2>/dev/null; fi
}

_sling_item() {
  # The word at the cursor whole: bash splits it at COMP_WORDBREAKS ('f=@re' comes as 'f' '=@' 're'),
  # and bash-completion's _get_comp_words_by_ref joins it back; without that, the line up to the
  # cursor from its last blank. Sets item, and pre: the part of item that bash keeps.
  if declare -F _get_comp_words_by_ref >/dev/null; then _get_comp_words_by_ref -n =@: -c item
  elif [[ -n \${COMP_LINE-} ]]; then item=\${COMP_LINE:0:COMP_POINT}; item=\${item##*[[:space:]]}
  else item=$cur; fi
  pre=\${item%"\${item##*["$COMP_WORDBREAKS"]}"}
  # readline keeps a leading '@' or '$' in the word it replaces (bash's special prefixes).
  if [[ $pre == *[@$] ]]; then pre=\${pre%?}; fi
}

_sling() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev='' opt='' i item pre
  (( COMP_CWORD > 0 )) && prev=\${COMP_WORDS[COMP_CWORD-1]}
  # bash splits --flag=value at '=': the flag is the word before the '='.
  if [[ $cur == = ]]; then opt=$prev; cur='';
  elif [[ $prev == = && COMP_CWORD -gt 1 ]]; then opt=\${COMP_WORDS[COMP_CWORD-2]};
  else opt=$prev; fi
  case "$opt" in
${valueCases.join('\n')}
    ${fileFlags.join('|')}) _sling_files '' "$cur"; return 0 ;;
    ${valueFlags.join('|')}) COMPREPLY=(); return 0 ;;
  esac
  local exec=0
  for (( i = 1; i < COMP_CWORD; i++ )); do [[ \${COMP_WORDS[i]} == exec ]] && exec=1; done
  case "$cur" in
    -*)
      if (( exec )); then _sling_reply "${exec.join(' ')}" "$cur" 0
      else _sling_reply "${main.join(' ')}" "$cur" 0; fi
      return 0 ;;
  esac
  _sling_item
  if [[ $item == *@* && $item != -* ]]; then
    _sling_files "\${item%%@*}@" "\${item#*@}"
    if [[ -n $pre ]]; then COMPREPLY=("\${COMPREPLY[@]#"$pre"}"); fi
    return 0
  fi
  if [[ $prev == completions ]]; then _sling_reply "${SHELLS.join(' ')}" "$cur" 0; return 0; fi
  if (( COMP_CWORD == 1 )); then _sling_reply "${SUBCOMMANDS.join(' ')}" "$cur" 0; return 0; fi
  if (( exec )); then _sling_files '' "$cur"; return 0; fi
  COMPREPLY=()
}

complete -o default -F _sling sling slings
`;
}

/** Text inside zsh's single quotes, and inside an _arguments [description]. */
const zq = (s: string) => s.replace(/'/g, `'\\''`);
const zdesc = (s: string) => zq(s.replace(/\\/g, '\\\\').replace(/[[\]:]/g, '\\$&'));

function zsh(): string {
  const specs: string[] = [];
  for (const o of allOptions()) {
    const desc = zdesc(helpOf(o));
    let arg = '';
    if (o.kind === 'value') {
      const values = optionValues(o);
      const action = values ? (takesFile(o) ? `{_sling_value_or_file ${values.join(' ')}}` : `(${values.join(' ')})`) : takesFile(o) ? '_files' : ' ';
      arg = `:${zq(metavarOf(o).toLowerCase().replace(/[[\]]/g, '').replace(/[:|]/g, ' '))}:${action}`;
    }
    const rep = o.repeat || o.kind === 'count' ? '*' : '';
    specs.push(`'${rep}--${o.long}${o.kind === 'value' ? '=' : ''}[${desc}]${arg}'`);
    for (const s of [o.short, ...(o.aliases ?? [])]) if (s) specs.push(`'${rep}-${s}${o.kind === 'value' ? '+' : ''}[${desc}]${arg}'`);
    if (negatable(o)) specs.push(`'--no-${o.long}[not --${o.long}]'`);
  }
  return `#compdef sling slings
# zsh completion for sling and slings (made by: sling completions zsh)
# Save it as _sling in a directory of $fpath (e.g. ~/.zfunc, with fpath+=(~/.zfunc) before
# compinit in ~/.zshrc), or load it directly: source <(sling completions zsh)

_sling_value_or_file() {
  # a flag that takes one of its words or a file name (--verify yes|no|PATH)
  _alternative "values:value:($*)" 'files:file:_files'
}

_sling_item() {
  if [[ $PREFIX == *@* ]]; then
    compset -P '*@'
    _files
  elif (( CURRENT == 2 )); then
    _values 'command' ${SUBCOMMANDS.join(' ')}
  elif [[ \${words[CURRENT-1]} == completions ]]; then
    _values 'shell' ${SHELLS.join(' ')}
  elif (( \${words[(I)exec]} )); then
    _files
  else
    _message 'METHOD, URL or request item'
  fi
}

_sling() {
  _arguments -s -S \\
    ${specs.join(' \\\n    ')} \\
    '*: :_sling_item'
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _sling "$@"
else
  compdef _sling sling slings
fi
`;
}

const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fish(): string {
  const lines: string[] = [];
  for (const o of allOptions()) {
    let line = `complete -c sling -l ${o.long}`;
    if (o.short) line += ` -s ${o.short}`;
    for (const a of o.aliases ?? []) line += ` -s ${a}`;
    if (EXEC_OPTIONS.includes(o)) line += ` -n '__fish_seen_subcommand_from exec'`;
    if (o.kind === 'value') {
      const values = optionValues(o);
      if (takesFile(o)) line += ' -r -F';
      else line += ' -x';
      if (values) line += ` -a ${fq(values.join(' '))}`;
    }
    lines.push(`${line} -d ${fq(helpOf(o))}`);
    if (negatable(o)) lines.push(`complete -c sling -l no-${o.long} -d ${fq(`not --${o.long}`)}`);
  }
  return `# fish completion for sling and slings (made by: sling completions fish)
# Save it as ~/.config/fish/completions/sling.fish (and a copy as slings.fish), or load it
# directly: sling completions fish | source

function __sling_at
    # file names after the @ of the word being typed (@body.json, field=@file, photo@me.jpg)
    set -l word (commandline -ct)
    string match -q -- '*@*' $word; or return
    set -l prefix (string replace -r '@.*' '@' -- $word)
    set -l path (string replace -r '^[^@]*@' '' -- $word)
    for f in (__fish_complete_path $path)
        echo $prefix$f
    end
end

complete -c sling -f -n '__fish_use_subcommand' -a ${fq(SUBCOMMANDS.join(' '))}
complete -c sling -f -n '__fish_seen_subcommand_from completions' -a ${fq(SHELLS.join(' '))}
complete -c sling -n '__fish_seen_subcommand_from exec' -F
complete -c sling -f -a '(__sling_at)'
${lines.join('\n')}
complete -c slings -w sling
`;
}

const pq = (s: string) => `'${s.replace(/'/g, "''")}'`;

function powershell(): string {
  const values: string[] = [];
  const files: string[] = [];
  const flags: string[] = [];
  for (const o of allOptions()) {
    flags.push(...names(o).map(pq));
    if (negatable(o)) flags.push(pq(`--no-${o.long}`));
    if (o.kind !== 'value') continue;
    const v = optionValues(o);
    if (v) for (const n of names(o)) values.push(`  $values[${pq(n)}] = @(${v.map(pq).join(', ')})`);
    if (takesFile(o)) files.push(...names(o).map(pq));
  }
  return `# PowerShell completion for sling and slings (made by: sling completions powershell)
# Add it to your profile: sling completions powershell | Out-String | Invoke-Expression
# (or save it to a file and dot-source that file from $PROFILE)

Register-ArgumentCompleter -Native -CommandName sling, slings -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  # Flags are case-sensitive (-a is not -A): an ordinal table, -ccontains and -clike throughout.
  $values = [System.Collections.Hashtable]::new([System.StringComparer]::Ordinal)
${values.join('\n')}
  $files = @(${files.join(', ')})
  $flags = @(${flags.join(', ')})
  $words = @($commandAst.CommandElements | ForEach-Object { $_.Extent.Text })
  $prev = if ($wordToComplete) { $words[-2] } else { $words[-1] }
  $word = $wordToComplete
  $offer = @()
  $prefix = ''
  $path = $null
  if ($word -cmatch '^(--[a-z-]+)=(.*)$' -and ($values.ContainsKey($Matches[1]) -or $files -ccontains $Matches[1])) {
    # --flag=value: complete the value, keep the flag.
    $prev = $Matches[1]
    $prefix = $Matches[1] + '='
    $word = $Matches[2]
  }
  if ($values.ContainsKey($prev)) {
    $offer = @($values[$prev] | Where-Object { $_ -clike "$word*" } | ForEach-Object { $prefix + $_ })
  }
  if ($files -ccontains $prev) { $path = $word }
  elseif ($values.ContainsKey($prev)) { }
  elseif ($word -clike '-*') {
    $offer = @($flags | Where-Object { $_ -clike "$word*" })
  }
  elseif ($word -like '*@*') {
    $at = $word.IndexOf('@')
    $prefix = $word.Substring(0, $at + 1)
    $path = $word.Substring($at + 1)
  }
  elseif ($words.Count -le 2) {
    $offer = @(@(${SUBCOMMANDS.map(pq).join(', ')}) | Where-Object { $_ -clike "$word*" })
  }
  if ($null -ne $path) {
    $offer += @(Get-ChildItem -Path "$path*" -ErrorAction SilentlyContinue | ForEach-Object {
      $name = if ($path -match '[\\\\/]') { Join-Path (Split-Path $path) $_.Name } else { $_.Name }
      $prefix + $name
    })
  }
  $offer | ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
}
`;
}
