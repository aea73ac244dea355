
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'vcr' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'vcr'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'vcr' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('--generate', '--generate', [CompletionResultType]::ParameterName, 'Print the man page or a shell''s completion script and exit (for packagers)')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check cassettes: valid, normalized, correctly named, no leaked secrets, machine paths, UUIDs or timestamps in the key material')
            [CompletionResult]::new('normalize', 'normalize', [CompletionResultType]::ParameterValue, 'Bring cassettes to the exact bytes their harness''s writer produces: dehydration rules applied to the fields the harness dehydrates, deterministic ids, canonical formatting')
            [CompletionResult]::new('rehash', 'rehash', [CompletionResultType]::ParameterValue, 'Re-key content-addressed cassettes under the current rules, without re-recording')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two versions of cassettes by what the agent did: tool calls, stop reasons, models, usage, text. Each cassette gets a verdict: identical, same behaviour (only usage, model, request, ids changed), reworded (only text), or behaviour change')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Walk the cassettes a re-recording changed, one at a time, and keep or reject each: after `vcr record`, what `cargo insta review` is for snapshots')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Run the test suite in record mode and keep only what a green run recorded')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'List (or delete) the cassettes no test reads any more, from the usage of a complete, green run')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'vcr;verify' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Accept the findings listed in FILE: only new ones are reported')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Write today''s findings to FILE as a baseline and exit 0')
            [CompletionResult]::new('--usage-log', '--usage-log', [CompletionResultType]::ParameterName, 'A usage log of a test run: report `missing` and `orphan` cassettes (repeatable)')
            [CompletionResult]::new('--max-age', '--max-age', [CompletionResultType]::ParameterName, 'HTTP cassettes recorded longer ago than AGE (`90d`, `12w`, `1y`, `36h`) are `expired` [default: `[verify] max-age`, else no limit]')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Say why the leak judge takes VALUE for a credential or not: where a cassette''s structure names it one (a header, query parameter, cookie or field), and as text (each detector''s verdict), then list its findings in the files checked. Given FILE#POINTER (a pointer as `--format json` prints it, or its start), say why each finding there was judged a leak, or, where there is none, why each value there is not one. Exits 0')
            [CompletionResult]::new('--severity', '--severity', [CompletionResultType]::ParameterName, 'Show findings of this severity or worse in the text and GitHub outputs (`-q` shows errors only); JSON and SARIF carry every finding, and the counts are the same')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('--staged', '--staged', [CompletionResultType]::ParameterName, 'Check what is staged for commit (read from git''s index)')
            [CompletionResult]::new('--allow-empty', '--allow-empty', [CompletionResultType]::ParameterName, 'Pass when no cassette is found (by default an empty tree is an error: nothing checked is not a pass)')
            [CompletionResult]::new('--list-detectors', '--list-detectors', [CompletionResultType]::ParameterName, 'List the leak detectors (the names `-v` prints and `[[verify.allow]] detector` takes) and exit')
            [CompletionResult]::new('--show-files', '--show-files', [CompletionResultType]::ParameterName, 'List the files vcr would read, one per line (as `rg --files` does), and exit; `-v` adds those git ignores')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'vcr;normalize' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Write nothing; exit 1 if any cassette would change')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print the unified diff of each change')
            [CompletionResult]::new('--allow-empty', '--allow-empty', [CompletionResultType]::ParameterName, 'Succeed when no cassette is found (by default an empty tree is an error)')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'vcr;rehash' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show the plan; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the plan; change nothing')
            [CompletionResult]::new('--allow-empty', '--allow-empty', [CompletionResultType]::ParameterName, 'Succeed when no cassette is found (by default an empty tree is an error)')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'vcr;diff' {
            [CompletionResult]::new('--rev', '--rev', [CompletionResultType]::ParameterName, 'Compare the tree at git revision REV with the working tree (PATHs limit it); a range compares two trees: `A..B` the tree at A with the tree at B, `A...B` their merge base with B (what a pull request from B into A changed)')
            [CompletionResult]::new('--textconv', '--textconv', [CompletionResultType]::ParameterName, 'Print the readable behaviour summary of one cassette (for a git diff driver)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format: `markdown` is the summary for a pull request (the job summary, a PR comment) or any CI that posts text')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Which differences exit 1, for a CI gate: `behaviour` (a behaviour change, or a cassette added or removed), `reworded` (those, or reworded text), `any` (any difference at all, the default)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Add the unified diff of the canonical forms (secrets masked)')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'vcr;review' {
            [CompletionResult]::new('--rev', '--rev', [CompletionResultType]::ParameterName, 'The git revision to compare with, whose bytes a rejection puts back')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format (`json` never asks)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('--accept-same-behaviour', '--accept-same-behaviour', [CompletionResultType]::ParameterName, 'Accept every cassette whose verdict is not a behaviour change, without asking')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'vcr;record' {
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Re-record only the cassettes matching these globs (moved aside, restored on failure)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'vcr;prune' {
            [CompletionResult]::new('--usage-log', '--usage-log', [CompletionResultType]::ParameterName, 'Usage logs of test runs (repeatable; CI shards and other OSes are combined)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if vcr was started in DIR')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for vcr.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured by `auto`)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine''s]')
            [CompletionResult]::new('--delete', '--delete', [CompletionResultType]::ParameterName, 'Delete the orphans (default: list them)')
            [CompletionResult]::new('--include-untracked', '--include-untracked', [CompletionResultType]::ParameterName, 'Also delete orphans git does not track (git cannot bring them back)')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less: only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: skipped files, the rule set, recovered runs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'vcr;help' {
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check cassettes: valid, normalized, correctly named, no leaked secrets, machine paths, UUIDs or timestamps in the key material')
            [CompletionResult]::new('normalize', 'normalize', [CompletionResultType]::ParameterValue, 'Bring cassettes to the exact bytes their harness''s writer produces: dehydration rules applied to the fields the harness dehydrates, deterministic ids, canonical formatting')
            [CompletionResult]::new('rehash', 'rehash', [CompletionResultType]::ParameterValue, 'Re-key content-addressed cassettes under the current rules, without re-recording')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two versions of cassettes by what the agent did: tool calls, stop reasons, models, usage, text. Each cassette gets a verdict: identical, same behaviour (only usage, model, request, ids changed), reworded (only text), or behaviour change')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Walk the cassettes a re-recording changed, one at a time, and keep or reject each: after `vcr record`, what `cargo insta review` is for snapshots')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Run the test suite in record mode and keep only what a green run recorded')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'List (or delete) the cassettes no test reads any more, from the usage of a complete, green run')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'vcr;help;verify' {
            break
        }
        'vcr;help;normalize' {
            break
        }
        'vcr;help;rehash' {
            break
        }
        'vcr;help;diff' {
            break
        }
        'vcr;help;review' {
            break
        }
        'vcr;help;record' {
            break
        }
        'vcr;help;prune' {
            break
        }
        'vcr;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
