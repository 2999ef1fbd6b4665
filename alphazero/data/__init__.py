"""Expert games in, GameRecords and the supervised dataset out: WTHOR (`wthor`), GGF (`ggf`) and
the memory-mapped supervised training set built from WTHOR (`dataset`)."""
