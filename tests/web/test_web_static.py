"""The page's script and markup, read as text: nothing in them turns data into markup or script.

app.js builds every node with createElement / createElementNS and puts strings in with
textContent, so no text from disk or from a request (checkpoint names, shard metadata,
TensorBoard tags, messages) is ever parsed as HTML. The rule here is absolute, not "no innerHTML
with data in it": an HTML-parsing sink with a constant today takes a template string tomorrow,
and no node of the page needs one (replaceChildren empties an element). index.html holds no inline
script or handler (the server's Content-Security-Policy would refuse them)."""

import re

from tests.conftest import REPO_ROOT

STATIC = REPO_ROOT / "alphazero" / "web" / "static"
# Every way a browser turns a string into markup or code.
SINKS = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser"
                   r"|srcdoc|\beval\s*\(|new\s+Function\b|setTimeout\(\s*[\"'`]|setInterval\(\s*[\"'`]"
                   r"|setAttribute\(\s*[\"'`]on|\.on\w+\s*=\s*[\"'`]")


def sinks(path):
    return [f"{path.name}:{number}: {line.strip()}" for number, line in enumerate(path.read_text().splitlines(), 1)
            if SINKS.search(line)]


def test_the_page_script_never_turns_a_string_into_markup_or_code():
    assert sinks(STATIC / "app.js") == []


def test_the_rule_catches_what_it_is_for(tmp_path):
    # What app.js held before (the network selector, a run's game row): both are found.
    before = tmp_path / "before.js"
    before.write_text('$("checkpoints").innerHTML = config.checkpoints.map((c) => `<option value="${c}">`).join("");\n'
                      'row.insertAdjacentHTML("beforeend", `<td>${network}</td>`);\nconst ok = el("td", {}, network);\n')
    assert [line.split(":")[1] for line in sinks(before)] == ["1", "2"]


def test_the_page_markup_has_no_inline_script_or_handler():
    page = (STATIC / "index.html").read_text()
    assert re.findall(r"<script\b[^>]*>", page) == ['<script src="/static/app.js">']
    assert not re.search(r"\son\w+\s*=", page, re.IGNORECASE) and "javascript:" not in page.lower()
