"""citekit's command line: `convert`, `check`, `arxiv`, `formats`, `keys`.

Thin by design: each command parses options, calls one pipeline function, prints diagnostics to
stderr as `path:line: severity: [key] message (code)` with a one-line summary last, writes data
to stdout or a file, and picks the exit code. The only module that imports click.

Exit codes: 0 every record written (warnings and info allowed); 1 at least one record rejected
or a problem at the `--fail-on` level; 2 usage error; 3 nothing could be written.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import click

from . import __version__, io
from .diagnostics import SEVERITY_RANK, Report
from .errors import CitekitError
from .formats import FORMATS, READ_FORMATS, WRITE_FORMATS
from .options import WriteOptions
from .pipeline import Conversion, KeyOptions

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 3

EXIT_CODES_HELP = (
    "Exit codes: 0 every record written; 1 a record was rejected (or a problem at the "
    "--fail-on level); 2 usage error; 3 nothing could be written."
)


# --------------------------------------------------------------------------------------------
# Shared options, defined once and stacked onto the commands that take them
# --------------------------------------------------------------------------------------------


def _stack(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def apply(func: Any) -> Any:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


def _split_commas(
    _ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]
) -> frozenset[str]:
    return frozenset(part.strip() for item in value for part in item.split(",") if part.strip())


input_options = _stack(
    click.argument("inputs", nargs=-1, required=True, metavar="INPUT..."),
    click.option("--from", "from_format", type=click.Choice(READ_FORMATS + ("biblatex",)),
                 help="Input format (default: detected from content and file name)."),
)

output_options = _stack(
    click.option("--to", "to_format", type=click.Choice(WRITE_FORMATS), default="bibtex",
                 show_default=True, help="Output format."),
    click.option("-o", "--output", default=io.STDIO, metavar="FILE",
                 help="Write here (atomically) instead of stdout."),
    click.option("--omit", multiple=True, callback=_split_commas, metavar="FIELD,...",
                 help="Leave these fields out (canonical or the format's own names)."),
    click.option("--protect", type=click.Choice(["acronyms", "all", "none"]),
                 default="acronyms", show_default=True,
                 help="BibTeX case protection for titles that carry none (RIS/CSL input)."),
)

key_options = _stack(
    click.option("--keep-keys", is_flag=True,
                 help="Keep every existing key that bibtex, biber and pandoc accept."),
    click.option("--key-pattern", metavar="PATTERN",
                 help="Key pattern, e.g. '{auth}{year}{title}' (see README)."),
    click.option("--key-map", metavar="FILE",
                 help="Write 'old<TAB>new<TAB>where' for every entry to FILE."),
)

report_options = _stack(
    click.option("--rejects", metavar="FILE",
                 help="Write the raw text of every rejected record to FILE."),
    click.option("--fail-on", type=click.Choice(["error", "warning"]), default="error",
                 show_default=True, help="Lowest severity that makes the exit code 1."),
    click.option("-q", "--quiet", is_flag=True,
                 help="Print only errors and the summary line on stderr."),
)

arxiv_options = _stack(
    click.option("--arxiv-url", envvar="CITEKIT_ARXIV_URL", metavar="URL",
                 help="arXiv API endpoint (env CITEKIT_ARXIV_URL)."),
    click.option("--offline", is_flag=True, help="Use the arXiv cache only; no requests."),
    click.option("--refresh", is_flag=True, help="Ignore what is cached; ask arXiv again."),
    click.option("--cache-dir", metavar="DIR", envvar="CITEKIT_CACHE_DIR",
                 help="Cache folder (default: the platform's user cache dir)."),
    click.option("--contact", metavar="EMAIL", envvar="CITEKIT_CONTACT",
                 help="Contact address sent in the User-Agent."),
)


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES_HELP)
@click.version_option(__version__, prog_name="citekit")
def cli() -> None:
    """Read BibTeX, RIS, CSL-JSON and arXiv listings; write BibTeX, BibLaTeX, CSL-JSON or RIS
    with normalised citation keys."""


@cli.command(epilog=EXIT_CODES_HELP)
@input_options
@output_options
@key_options
@report_options
@click.option("--dedupe", is_flag=True,
              help="Merge entries that are the same work (arXiv id, DOI, or title+author+year).")
@click.option("--in-place", is_flag=True,
              help="Rewrite the single INPUT in its own format (atomically).")
@click.option("--backup", is_flag=True, help="With --in-place: keep the old file as INPUT~.")
@click.option("--enrich", is_flag=True, help="Fill and correct entries from the arXiv API.")
@click.option("--overwrite", is_flag=True, help="With --enrich: prefer arXiv's values.")
@click.option("--prefer-published", is_flag=True,
              help="With --enrich: show the published version when arXiv knows it.")
@arxiv_options
def convert(**opts: Any) -> None:
    """Convert INPUT files (files, folders, or - for stdin) to one bibliography.

    \b
    Examples:
      citekit convert refs.bib --to biblatex -o refs.biblatex.bib
      citekit convert sources/ --to csl-json -o sources.json
      cat refs.ris | citekit convert - --to bibtex
    """
    _run_convert(opts)


@cli.command(epilog=EXIT_CODES_HELP)
@input_options
@key_options
@report_options
def check(**opts: Any) -> None:
    """Read INPUT files and report every problem; write nothing but the report."""
    opts.update(to_format="bibtex", output=None, omit=frozenset(), protect="acronyms",
                dedupe=False, in_place=False, backup=False, enrich=False)
    _run_convert(opts, check_only=True)


@cli.command(epilog=EXIT_CODES_HELP)
@click.argument("ids", nargs=-1, required=True, metavar="ID_OR_URL...")
@click.option("--to", "to_format", type=click.Choice(WRITE_FORMATS), default="bibtex",
              show_default=True, help="Output format.")
@click.option("-o", "--output", default=io.STDIO, metavar="FILE",
              help="Write here (atomically) instead of stdout.")
@click.option("--prefer-published", is_flag=True,
              help="Show the published version when arXiv knows it.")
@key_options
@report_options
@arxiv_options
def arxiv(**opts: Any) -> None:
    """Print entries for arXiv ids or URLs (2101.00001, hep-th/9901001v2, arxiv.org/abs/...)."""
    from .enrichment import ArxivSettings, fetch_conversion

    pattern = opts.get("key_pattern")
    if pattern:
        _validate_pattern(pattern)
    conversion = fetch_conversion(
        list(opts["ids"]),
        ArxivSettings.from_options(opts),
        to_format=opts["to_format"],
        key_options=KeyOptions(keep_keys=opts["keep_keys"], pattern=pattern),
        progress=_wants_progress(opts),
    )
    wrote = conversion.text is not None and _write_outputs(conversion, opts["output"], opts)
    _print_report(conversion.report, quiet=opts["quiet"])
    sys.exit(_exit_code(conversion.report, wrote=wrote, fail_on=opts["fail_on"]))


@cli.command("formats")
def formats_command() -> None:
    """List the formats citekit reads and writes."""
    for fmt in FORMATS.values():
        modes = ("read" if fmt.name in READ_FORMATS or fmt.dialect else "") + (
            "/write" if fmt.writable else ""
        )
        click.echo(f"{fmt.name:14} {modes.strip('/'):11} {', '.join(fmt.suffixes):24} "
                   f"{fmt.description}")


@cli.command("keys")
def keys_command() -> None:
    """Explain the citation-key rules, the pattern language and the stop words."""
    from . import keys

    click.echo(keys.PATTERN_HELP.rstrip())
    click.echo("\nStop words (never used as the title word):")
    click.echo(click.wrap_text(" ".join(sorted(keys.STOP_WORDS)), width=78))


# --------------------------------------------------------------------------------------------
# Running a conversion
# --------------------------------------------------------------------------------------------


def _run_convert(opts: dict[str, Any], *, check_only: bool = False) -> None:
    inputs: list[str] = list(opts["inputs"])
    output: str | None = opts["output"]
    to_format: str = opts["to_format"]
    if opts.get("in_place"):
        output, to_format = _in_place_target(inputs, opts)
    elif output and output != io.STDIO:
        for path in inputs:
            if io.same_file(path, output):
                raise click.UsageError(
                    f"output {output} is also an input; use --in-place to rewrite it"
                )
    pattern = opts.get("key_pattern")
    if pattern:
        _validate_pattern(pattern)
    write_options = WriteOptions(omit=opts["omit"], protect=opts["protect"])
    if not opts.get("enrich") and any(opts.get(o) for o in ("overwrite", "prefer_published")):
        raise click.UsageError("--overwrite and --prefer-published go with --enrich")
    enrich = _make_enricher(opts) if opts.get("enrich") else None
    from .pipeline import convert as run

    try:
        conversion = run(
            inputs,
            to_format=to_format,
            from_format=opts.get("from_format"),
            write_options=write_options,
            key_options=KeyOptions(keep_keys=opts["keep_keys"], pattern=pattern),
            merge_duplicates=opts.get("dedupe", False),
            enrich=enrich,
        )
    except CitekitError as exc:
        _fail(str(exc))
    report = conversion.report
    wrote = _write_outputs(conversion, None if check_only else output, opts)
    _print_report(report, quiet=opts["quiet"])
    sys.exit(_exit_code(report, wrote=wrote, fail_on=opts["fail_on"]))


def _in_place_target(inputs: list[str], opts: dict[str, Any]) -> tuple[str, str]:
    if len(inputs) != 1 or inputs[0] == io.STDIO or os.path.isdir(inputs[0]):
        raise click.UsageError("--in-place takes exactly one input file")
    if opts["output"] not in (None, io.STDIO):
        raise click.UsageError("--in-place and -o/--output do not go together")
    path = inputs[0]
    try:
        from .formats import detect_format

        text = io.read_input(path).text
        fmt = detect_format(path, text)
    except CitekitError as exc:
        _fail(str(exc))
    if not fmt.writable:
        raise click.UsageError(f"{path} is {fmt.name}, which citekit cannot write")
    name = opts.get("from_format") or fmt.name
    if name == "bibtex":  # keep the file's dialect: biblatex fields must not become bibtex ones
        name = fmt.load().guess_dialect(text)
    return path, name


def _validate_pattern(pattern: str) -> None:
    from . import keys

    try:
        keys.validate_pattern(pattern)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--key-pattern") from None


def _make_enricher(opts: dict[str, Any]) -> Callable[..., None]:
    from .enrichment import ArxivSettings, make_enricher

    return make_enricher(ArxivSettings.from_options(opts), progress=_wants_progress(opts))


def _wants_progress(opts: dict[str, Any]) -> bool:
    return not opts["quiet"] and sys.stderr.isatty()


def _write_outputs(conversion: Conversion, output: str | None, opts: dict[str, Any]) -> bool:
    """Write data, the rejects file and the key map; False when the data could not be written."""
    report = conversion.report
    wrote = False
    if conversion.text is not None and output is not None:
        try:
            io.write_atomic(output, conversion.text, backup=opts.get("backup", False))
            wrote = True
        except CitekitError as exc:
            report.add(_output_error(str(exc)))
    if opts.get("rejects"):
        raws = [r.raw.rstrip("\n") + "\n" for r in conversion.bibliography.rejected]
        _write_side_file(report, opts["rejects"], "\n".join(raws))
    if opts.get("key_map"):
        lines = [f"{old}\t{new}\t{where}\n" for old, new, where in conversion.renames]
        _write_side_file(report, opts["key_map"], "old\tnew\twhere\n" + "".join(lines))
    if output is None:  # `check`: the conversion ran; nothing was meant to be written
        wrote = conversion.text is not None
        report.written = 0
    elif not wrote:
        report.written = 0
    return wrote


def _write_side_file(report: Report, path: str, text: str) -> None:
    try:
        io.write_atomic(path, text)
    except CitekitError as exc:
        report.add(_output_error(str(exc)))


def _output_error(message: str) -> Any:
    from .diagnostics import error

    return error("output.failed", message)


def _print_report(report: Report, *, quiet: bool) -> None:
    err = click.get_text_stream("stderr")
    for diagnostic in report.diagnostics:
        if quiet and diagnostic.severity != "error":
            continue
        err.write(diagnostic.render() + "\n")
    err.write(report.summary() + "\n")
    err.flush()


def _exit_code(report: Report, *, wrote: bool, fail_on: str) -> int:
    if not wrote:
        return EXIT_NOTHING
    threshold = SEVERITY_RANK[fail_on]
    if report.rejected or any(SEVERITY_RANK[d.severity] >= threshold for d in report.diagnostics):
        return EXIT_REJECTED
    return EXIT_OK


def _fail(message: str) -> None:
    click.echo(f"citekit: error: {message}", err=True)
    sys.exit(EXIT_NOTHING)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="citekit")
