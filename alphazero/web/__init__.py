"""The web board: play, analyse and watch a run in the browser (`python -m alphazero.web`).

`positions` turns what the page sends (a start position and moves, pasted text) into games and
back; `analysis` runs the network and the search for the page, the searches taking turns;
`runs` reads a run directory's self-play games and curves; `access` says who may drive the board
and which paths a request may name; `server` is the Flask app that serves the API and the static
page (`static/`: plain HTML, CSS and JavaScript, no build step). Nothing here writes a file of its
own; loading a network may write the precision cache (alphazero.nn.precision), as play does.
"""
