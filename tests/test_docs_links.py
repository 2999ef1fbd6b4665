"""The documentation's links lead somewhere, and docs/benchmarks.md stays a reference.

Every relative link of README.md and docs/*.md must name a file (or folder) of the repository, and
a `#anchor` into a markdown file must name one of its headings, as GitHub makes them. Figures and
sections move (docs/benchmarks.md keeps one current figure per benchmark; the history lives in
experiments/<name>/README.md), so a link that once pointed at a section is checked, not trusted.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# docs/benchmarks.md is one current figure per benchmark; history goes to the experiments' READMEs.
BENCHMARKS_MAX_LINES = 600

INLINE_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the lines outside code: fenced blocks, indented blocks and inline
    code spans are dropped, since a command's brackets are not links."""
    lines = []
    fence = None
    previous_blank = True
    in_indented = False
    for number, line in enumerate(text.split("\n"), 1):
        marker = FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1) == fence:
                fence = None
            continue
        if marker:
            fence = marker.group(1)
            continue
        blank = not line.strip()
        indented = line.startswith("    ") or line.startswith("\t")
        in_indented = indented and not blank and (previous_blank or in_indented)
        previous_blank = blank
        if in_indented:
            continue
        lines.append((number, re.sub(r"`[^`]*`", "``", line)))
    return lines


def github_anchor(title: str) -> str:
    """The anchor GitHub gives a heading: the rendered text in lower case, everything but letters,
    digits, spaces, hyphens and underscores dropped, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link's text, not its target
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(text: str) -> set[str]:
    """Every heading's anchor; a repeated heading gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    anchors = set()
    fence = None
    for line in text.split("\n"):
        marker = FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1) == fence:
                fence = None
            continue
        if marker:
            fence = marker.group(1)
            continue
        heading = HEADING.match(line)
        if not heading:
            continue
        anchor = github_anchor(heading.group(2))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchors.add(anchor if count == 0 else f"{anchor}-{count}")
    return anchors


def link_problems(document: Path, root: Path = ROOT) -> list[str]:
    """One line per link of `document` that leads nowhere: a missing file, or an anchor that is
    no heading of the markdown file it points into."""
    problems = []
    text = document.read_text()
    for number, line in prose_lines(text):
        targets = INLINE_LINK.findall(line)
        reference = REFERENCE_LINK.match(line)
        if reference:
            targets.append(reference.group(1))
        for target in targets:
            if SCHEME.match(target):
                continue
            path_part, _, anchor = target.partition("#")
            where = f"{document.relative_to(root)}:{number}"
            resolved = (document.parent / path_part).resolve() if path_part else document
            if not resolved.exists():
                problems.append(f"{where} links to {target}: {path_part} does not exist")
                continue
            if anchor and resolved.suffix == ".md" and resolved.is_file():
                if anchor not in anchors_of(resolved.read_text()):
                    problems.append(
                        f"{where} links to {target}: {resolved.relative_to(root)} has no heading #{anchor}"
                    )
    return problems


def test_every_relative_link_of_the_readme_and_docs_leads_to_a_file_and_heading():
    problems = [problem for document in DOCUMENTS for problem in link_problems(document)]
    assert not problems, "\n".join(problems)


def test_the_checker_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Title\n\n## A section: with `code`\n\n## A section: with `code`\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "See [there](other.md#a-section-with-code) and [again](other.md#a-section-with-code-1),\n"
        "[gone](missing.md), [nowhere](other.md#no-such-heading) and [self](#local).\n"
        "\n"
        "## Local\n"
        "\n"
        "    printf '[not](a-link.md)'\n"
        "\n"
        "```\n[also not](a-link.md)\n```\n"
        "Inline `[code](a-link.md)` and [the web](https://example.org/x.md) are not checked.\n"
    )
    problems = link_problems(page, root=tmp_path)
    assert len(problems) == 2, problems
    assert "missing.md does not exist" in problems[0] and "page.md:2" in problems[0]
    assert "has no heading #no-such-heading" in problems[1]


def test_benchmarks_stays_a_reference():
    lines = len((ROOT / "docs" / "benchmarks.md").read_text().splitlines())
    assert lines < BENCHMARKS_MAX_LINES, (
        f"docs/benchmarks.md has {lines} lines (at most {BENCHMARKS_MAX_LINES - 1}): keep one current "
        "figure per benchmark and move the history to the experiment's README (experiments/<name>/)"
    )
