"""The web board: play, analyse and watch a run in the browser (`python -m alphazero.web`).

`positions` turns what the page sends (a start position and moves, pasted text) into games and
back; `analysis` runs the network and the search for the page; `runs` reads a run directory's
self-play games and curves; `server` is the Flask app that serves the API and the static page
(`static/`: plain HTML, CSS and JavaScript, no build step). Nothing here writes a file.
"""
