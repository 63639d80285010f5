"""Programs that run another command (`env`, `sudo`, `timeout`, `flock`, `script -c`, `watch`,
`xargs`, ...), and how each reads its own options before that command.

Each is described by the options that take a value, the operands before the command, the
options after which no command runs, and the options whose value is itself a script. The shell
reader (`shell_command`) unwraps them as data.
"""

from __future__ import annotations

import shlex

from .shell_words import Arg


class Wrapper:
    """How a program that runs another command reads its own options.

    values: options that take a value; positionals: operands before the command (a timeout's
    duration, flock's file); stops: options that mean no command follows (`command -v`);
    script: options whose value is a shell script it runs (`script -c`); chdir: options naming
    the folder it runs in; split: options whose value is split into words (`env -S`); joins:
    the rest is joined into a script (`watch`); adds: why its command gets more arguments.
    """

    __slots__ = ("adds", "chdir", "joins", "positionals", "script", "split", "stops", "values")

    def __init__(  # noqa: PLR0913  # each is one way a wrapper reads its options
        self,
        values: str = "",
        *,
        positionals: int = 0,
        stops: str = "",
        script: str = "",
        chdir: str = "",
        split: str = "",
        joins: bool = False,
        adds: str | None = None,
    ) -> None:
        self.values = frozenset(values.split())
        self.positionals = positionals
        self.stops = frozenset(stops.split())
        self.script = frozenset(script.split())
        self.chdir = frozenset(chdir.split())
        self.split = frozenset(split.split())
        self.joins = joins
        self.adds = adds


_SUDO = (
    "-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir -r --role -t --type"
    " -U --other-user"
)
WRAPPERS = {
    "env": Wrapper(
        "-u --unset -C --chdir -S --split-string", chdir="-C --chdir", split="-S --split-string"
    ),
    "command": Wrapper(stops="-v -V"),
    "builtin": Wrapper(),
    "exec": Wrapper("-a"),
    "nohup": Wrapper(),
    "setsid": Wrapper(),
    "unbuffer": Wrapper(),
    "time": Wrapper("-f --format -o --output"),
    "nice": Wrapper("-n --adjustment"),
    "stdbuf": Wrapper("-i -o -e --input --output --error"),
    "timeout": Wrapper("-s --signal -k --kill-after", positionals=1),
    "sudo": Wrapper(_SUDO, chdir="-D --chdir", stops="-l --list -v --validate -k -K -e"),
    "doas": Wrapper("-u -C"),
    "caffeinate": Wrapper("-t -w"),
    "ionice": Wrapper("-c --class -n --classdata", stops="-p --pid -P --pgid -u --uid"),
    "taskset": Wrapper(positionals=1, stops="-p --pid"),
    "chrt": Wrapper(
        "-T -P -D --sched-runtime --sched-period --sched-deadline", positionals=1, stops="-p --pid"
    ),
    "flock": Wrapper(
        "-w --wait --timeout -E --conflict-exit-code -c --command",
        positionals=1,
        script="-c --command",
    ),
    "script": Wrapper(
        "-c --command -E --echo -m --logging-format -T --log-timing -B --log-io -I --log-in"
        " -O --log-out",
        script="-c --command",
    ),
    "su": Wrapper("-c --command -s --shell -g --group -G --supp-group -w", script="-c --command"),
    "watch": Wrapper("-n --interval -q --equexit", joins=True),
    "xargs": Wrapper(
        "-a --arg-file -d --delimiter -E -e --eof -I -i --replace -L -l --max-lines -n"
        " --max-args -P --max-procs -s --max-chars",
        adds="`xargs` adds arguments to it that cagr cannot see",
    ),
    "parallel": Wrapper(
        "-j --jobs -S --sshlogin -a --arg-file --colsep -C -d --delimiter -E -I -n --max-args"
        " -N -P -s --timeout --joblog --results --tmpdir --workdir --env",
        adds="`parallel` adds arguments to it that cagr cannot see",
    ),
}


def read_options(args: list[Arg], index: int, spec: Wrapper, given: dict[str, str | None]) -> int:
    """Read a wrapper's options from `index` into `given` (flags map to ""); the index of the
    first word after them, or -1 when an option is computed by the shell."""
    while index < len(args):
        text = args[index].text
        if text is None:
            return -1 if args[index].raw.startswith("-") else index
        if text == "--":
            return index + 1
        if not text.startswith("-") or text == "-":
            return index
        following = args[index + 1].text if index + 1 < len(args) else None
        if text.startswith("--"):
            name, equals, value = text.partition("=")
            takes = name in spec.values and not equals
            given[name] = following if takes else value
            index += 2 if takes else 1
            continue
        index += 1
        for position, letter in enumerate(text[1:], start=1):
            option = "-" + letter
            if option not in spec.values:
                given[option] = ""
                continue
            attached = text[position + 1 :]
            given[option] = attached or following
            index += 0 if attached else 1
            break
    return index


def split_string(value: str) -> list[str]:
    """`env -S`'s words: split as the shell splits a line (env's own escapes are close to it)."""
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


def parallel_command(rest: list[Arg]) -> list[Arg]:
    """The command `parallel` runs: its words before the first `:::` / `::::` separator."""
    for index, arg in enumerate(rest):
        if arg.text in (":::", "::::", ":::+", "::::+"):
            return rest[:index]
    return rest
