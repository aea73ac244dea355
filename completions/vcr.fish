# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_vcr_global_optspecs
    string join \n C= config= color= platform= no-ignore q/quiet v/verbose generate= h/help V/version
end

function __fish_vcr_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_vcr_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_vcr_using_subcommand
    set -l cmd (__fish_vcr_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c vcr -n "__fish_vcr_needs_command" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_needs_command" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_needs_command" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_needs_command" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_needs_command" -l generate -d 'Print the man page or a shell\'s completion script and exit (for packagers)' -r -f -a "man\t'The man page vcr(1); `--generate man verify` prints vcr-verify(1), and so on'
complete-bash\t'Completions for bash'
complete-zsh\t'Completions for zsh'
complete-fish\t'Completions for fish'
complete-powershell\t'Completions for PowerShell'"
complete -c vcr -n "__fish_vcr_needs_command" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_needs_command" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_needs_command" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_needs_command" -s V -l version -d 'Print version'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "verify" -d 'Check cassettes: valid, normalized, correctly named, no leaked secrets, machine paths, UUIDs or timestamps in the key material'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "normalize" -d 'Bring cassettes to the exact bytes their harness\'s writer produces: dehydration rules applied to the fields the harness dehydrates, deterministic ids, canonical formatting'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "rehash" -d 'Re-key content-addressed cassettes under the current rules, without re-recording'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "diff" -d 'Compare two versions of cassettes by what the agent did: tool calls, stop reasons, models, usage, text. Each cassette gets a verdict: identical, same behaviour (only usage, model, request, ids changed), reworded (only text), or behaviour change'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "review" -d 'Walk the cassettes a re-recording changed, one at a time, and keep or reject each: after `vcr record`, what `cargo insta review` is for snapshots'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "record" -d 'Run the test suite in record mode and keep only what a green run recorded'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "prune" -d 'List (or delete) the cassettes no test reads any more, from the usage of a complete, green run'
complete -c vcr -n "__fish_vcr_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l format -d 'Output format' -r -f -a "human\t'Grouped by file, with a summary line'
json\t'`{"version":1,"findings":[...],"summary":{...}}`'
sarif\t'SARIF 2.1.0, for code scanning'
github\t'GitHub Actions workflow annotations'"
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l baseline -d 'Accept the findings listed in FILE: only new ones are reported' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l write-baseline -d 'Write today\'s findings to FILE as a baseline and exit 0' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l usage-log -d 'A usage log of a test run: report `missing` and `orphan` cassettes (repeatable)' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l max-age -d 'HTTP cassettes recorded longer ago than AGE (`90d`, `12w`, `1y`, `36h`) are `expired` [default: `[verify] max-age`, else no limit]' -r
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l explain -d 'Say why the leak judge takes VALUE for a credential or not: where a cassette\'s structure names it one (a header, query parameter, cookie or field), and as text (each detector\'s verdict), then list its findings in the files checked. Given FILE#POINTER (a pointer as `--format json` prints it, or its start), say why each finding there was judged a leak, or, where there is none, why each value there is not one. Exits 0' -r
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l severity -d 'Show findings of this severity or worse in the text and GitHub outputs (`-q` shows errors only); JSON and SARIF carry every finding, and the counts are the same' -r -f -a "error\t'Errors only'
warning\t'Errors and warnings'"
complete -c vcr -n "__fish_vcr_using_subcommand verify" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l staged -d 'Check what is staged for commit (read from git\'s index)'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l allow-empty -d 'Pass when no cassette is found (by default an empty tree is an error: nothing checked is not a pass)'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l list-detectors -d 'List the leak detectors (the names `-v` prints and `[[verify.allow]] detector` takes) and exit'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l show-files -d 'List the files vcr would read, one per line (as `rg --files` does), and exit; `-v` adds those git ignores'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l format -d 'Output format' -r -f -a "human\t'Text for people'
json\t'One JSON document with `"version": 1`'"
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l check -d 'Write nothing; exit 1 if any cassette would change'
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l diff -d 'Print the unified diff of each change'
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l allow-empty -d 'Succeed when no cassette is found (by default an empty tree is an error)'
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_using_subcommand normalize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -l format -d 'Output format' -r -f -a "human\t'Text for people'
json\t'One JSON document with `"version": 1`'"
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -s n -l dry-run -d 'Show the plan; change nothing'
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -l allow-empty -d 'Succeed when no cassette is found (by default an empty tree is an error)'
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_using_subcommand rehash" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l rev -d 'Compare the tree at git revision REV with the working tree (PATHs limit it); a range compares two trees: `A..B` the tree at A with the tree at B, `A...B` their merge base with B (what a pull request from B into A changed)' -r
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l textconv -d 'Print the readable behaviour summary of one cassette (for a git diff driver)' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l format -d 'Output format: `markdown` is the summary for a pull request (the job summary, a PR comment) or any CI that posts text' -r -f -a "human\t'A verdict line per cassette, its changes below it'
json\t'One JSON document with `"version": 1`'
markdown\t'A summary for a pull request or any CI that posts text: verdict counts, behaviour changes first, the rest collapsed, under GitHub\'s 65,536-character comment limit'"
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l fail-on -d 'Which differences exit 1, for a CI gate: `behaviour` (a behaviour change, or a cassette added or removed), `reworded` (those, or reworded text), `any` (any difference at all, the default)' -r -f -a "behaviour\t'A behaviour change, or a cassette added or removed: what the agent did changed'
reworded\t'Those, or reworded text'
any\t'Any difference, "same behaviour" included'"
complete -c vcr -n "__fish_vcr_using_subcommand diff" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l full -d 'Add the unified diff of the canonical forms (secrets masked)'
complete -c vcr -n "__fish_vcr_using_subcommand diff" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_using_subcommand diff" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_using_subcommand diff" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_using_subcommand review" -l rev -d 'The git revision to compare with, whose bytes a rejection puts back' -r
complete -c vcr -n "__fish_vcr_using_subcommand review" -l format -d 'Output format (`json` never asks)' -r -f -a "human\t'Text for people'
json\t'One JSON document with `"version": 1`'"
complete -c vcr -n "__fish_vcr_using_subcommand review" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand review" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand review" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_using_subcommand review" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_using_subcommand review" -l accept-same-behaviour -d 'Accept every cassette whose verdict is not a behaviour change, without asking'
complete -c vcr -n "__fish_vcr_using_subcommand review" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_using_subcommand review" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_using_subcommand review" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_using_subcommand review" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_using_subcommand record" -l only -d 'Re-record only the cassettes matching these globs (moved aside, restored on failure)' -r
complete -c vcr -n "__fish_vcr_using_subcommand record" -l format -d 'Output format' -r -f -a "human\t'Text for people'
json\t'One JSON document with `"version": 1`'"
complete -c vcr -n "__fish_vcr_using_subcommand record" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand record" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand record" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_using_subcommand record" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_using_subcommand record" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_using_subcommand record" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_using_subcommand record" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_using_subcommand record" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l usage-log -d 'Usage logs of test runs (repeatable; CI shards and other OSes are combined)' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l format -d 'Output format' -r -f -a "human\t'Text for people'
json\t'One JSON document with `"version": 1`'"
complete -c vcr -n "__fish_vcr_using_subcommand prune" -s C -d 'Run as if vcr was started in DIR' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l config -d 'Use this configuration file instead of looking for vcr.toml' -r -F
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l color -d 'When to use colour (NO_COLOR is honoured by `auto`)' -r -f -a "auto\t'When writing to a terminal and NO_COLOR is not set'
always\t'Always'
never\t'Never'"
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l platform -d 'Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine\'s]' -r -f -a "unix\t'Paths as written (Linux, macOS)'
windows\t'Also forward-slash and JSON-escaped forms of Windows paths'"
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l delete -d 'Delete the orphans (default: list them)'
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l include-untracked -d 'Also delete orphans git does not track (git cannot bring them back)'
complete -c vcr -n "__fish_vcr_using_subcommand prune" -l no-ignore -d 'Read files git ignores too (.gitignore, .git/info/exclude, global excludes)'
complete -c vcr -n "__fish_vcr_using_subcommand prune" -s q -l quiet -d 'Say less: only errors'
complete -c vcr -n "__fish_vcr_using_subcommand prune" -s v -l verbose -d 'Say more: skipped files, the rule set, recovered runs'
complete -c vcr -n "__fish_vcr_using_subcommand prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "verify" -d 'Check cassettes: valid, normalized, correctly named, no leaked secrets, machine paths, UUIDs or timestamps in the key material'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "normalize" -d 'Bring cassettes to the exact bytes their harness\'s writer produces: dehydration rules applied to the fields the harness dehydrates, deterministic ids, canonical formatting'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "rehash" -d 'Re-key content-addressed cassettes under the current rules, without re-recording'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "diff" -d 'Compare two versions of cassettes by what the agent did: tool calls, stop reasons, models, usage, text. Each cassette gets a verdict: identical, same behaviour (only usage, model, request, ids changed), reworded (only text), or behaviour change'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "review" -d 'Walk the cassettes a re-recording changed, one at a time, and keep or reject each: after `vcr record`, what `cargo insta review` is for snapshots'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "record" -d 'Run the test suite in record mode and keep only what a green run recorded'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "prune" -d 'List (or delete) the cassettes no test reads any more, from the usage of a complete, green run'
complete -c vcr -n "__fish_vcr_using_subcommand help; and not __fish_seen_subcommand_from verify normalize rehash diff review record prune help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
