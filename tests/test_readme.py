"""The README is a front page a newcomer reads in five minutes: at most 2,000 words, a table of
contents that matches its sections, and links that lead somewhere."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_the_readme_reads_in_five_minutes():
    words = len(re.sub(r"```.*?```", " ", README, flags=re.S).split())
    assert words <= 2000, f"README.md has {words} words of prose; move reference material to docs/"


def test_its_contents_list_every_section_and_only_those():
    sections = re.findall(r"^## (.+)$", README, flags=re.M)
    assert sections[0] == "Contents"
    anchors = re.findall(r"^- \[(.+?)\]\(#([a-z0-9-]+)\)$", README, flags=re.M)
    assert [title for title, _ in anchors] == sections[1:]
    for title, anchor in anchors:  # GitHub's anchors: lower case, punctuation dropped, spaces to dashes
        assert anchor == re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def test_every_local_link_leads_to_a_file():
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), f"README.md links to {target}, which does not exist"
