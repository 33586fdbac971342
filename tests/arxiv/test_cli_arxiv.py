"""`citekit arxiv` and `convert --enrich` end to end: the real CLI, the real client, the local
replay server. Each run makes at most one request, so the 3-second spacing never waits."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from localarxiv import LocalArxiv, Scripted

from citekit.cli import cli


def invoke(args: list[str], server: LocalArxiv, cache: Path):
    env = {"CITEKIT_ARXIV_URL": server.url, "CITEKIT_CACHE_DIR": str(cache)}
    return CliRunner().invoke(cli, args, env=env, catch_exceptions=False)


def test_arxiv_command_prints_an_entry_and_a_cached_rerun_asks_nothing(
    server: LocalArxiv, tmp_path: Path
) -> None:
    first = invoke(["arxiv", "https://arxiv.org/abs/1605.08386", "--to", "biblatex"], server,
                   tmp_path)  # fmt: skip
    assert first.exit_code == 0, first.stderr
    assert first.stdout.startswith("@online{")
    assert "eprint = {1605.08386}," in first.stdout
    assert "1 record(s) read, 1 written, 0 rejected" in first.stderr
    assert len(server.requests) == 1
    assert server.requests[0].params["id_list"] == "1605.08386"
    assert server.requests[0].user_agent.startswith("citekit/")
    second = invoke(["arxiv", "1605.08386", "--to", "biblatex"], server, tmp_path)
    assert second.stdout == first.stdout
    assert len(server.requests) == 1  # answered from the cache


def test_unknown_and_invalid_ids_are_rejected_with_exit_1(
    server: LocalArxiv, tmp_path: Path
) -> None:
    result = invoke(["arxiv", "1605.08386", "not-an-id"], server, tmp_path)
    assert result.exit_code == 1
    assert "not an arXiv id: 'not-an-id' (arxiv.invalid-id)" in result.stderr
    assert "2 record(s) read, 1 written, 1 rejected" in result.stderr


def test_enrich_fills_an_entry_by_its_eprint(server: LocalArxiv, tmp_path: Path) -> None:
    source = tmp_path / "refs.bib"
    source.write_text("@misc{mine, title = {Heat-Bath Random Walks with {Markov} Bases},"
                      " eprint = {1605.08386}, archiveprefix = {arXiv}}\n")  # fmt: skip
    result = invoke(["convert", str(source), "--enrich", "--keep-keys"], server, tmp_path)
    assert result.exit_code == 0, result.stderr
    assert "@misc{mine," in result.stdout
    # the user's own title is kept; the authors and the year came from arXiv
    assert "title = {Heat-Bath Random Walks with {Markov} Bases}" in result.stdout
    assert "author = {Stanley, Caprice and Windisch, Tobias}" in result.stdout
    assert "year = {2016}" in result.stdout
    assert "(arxiv.enriched)" in result.stderr


def test_an_id_that_names_another_paper_is_not_merged(server: LocalArxiv, tmp_path: Path):
    source = tmp_path / "refs.bib"
    source.write_text("@misc{mine, title = {Something Else Entirely}, eprint = {1605.08386}}\n")
    result = invoke(["convert", str(source), "--enrich", "--keep-keys"], server, tmp_path)
    assert "author" not in result.stdout
    assert "(arxiv.id-mismatch)" in result.stderr


def test_enrich_keeps_entries_when_arxiv_fails(server: LocalArxiv, tmp_path: Path) -> None:
    source = tmp_path / "refs.bib"
    source.write_text("@misc{mine, title = {Something}, eprint = {1605.08386}}\n")
    server.queue(Scripted(status=403, body=b"Access denied"))
    result = invoke(["convert", str(source), "--enrich", "--keep-keys"], server, tmp_path)
    assert result.exit_code == 1
    assert "@misc{mine," in result.stdout and "title = {Something}" in result.stdout
    assert "(arxiv.unavailable)" in result.stderr
