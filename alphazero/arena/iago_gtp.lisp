;;;; A GTP front end for the Iago player of Debian's cl-reversi (Norvig's "Paradigms of AI
;;;; Programming", chapter 18: alpha-beta with killer moves over an approximation of Rosenbloom's
;;;; Iago evaluation: edge stability from a precomputed edge table, current and potential
;;;; mobility). It gives the arena an engine of another family than GRhino.
;;;;
;;;; Started by `python -m alphazero.arena.iago --depth D [--seconds S]`, which loads this file into
;;;; SBCL and calls (iago-gtp:serve D [S]). Commands: protocol_version, name, version, known_command,
;;;; list_commands, boardsize (8 only), clear_board, play, genmove, showboard, final_score, quit.
;;;; Like GRhino it is told every move and never a pass: `play` and `genmove` may name either
;;;; colour, and `genmove` answers `pass` for a colour with no legal move. A malformed or illegal
;;;; command gets `? reason` and changes nothing.

(defpackage #:iago-gtp
  (:use #:common-lisp)
  (:export #:serve))

(in-package #:iago-gtp)

(defvar *board* (reversi::initial-board) "The game as the engine was told it (cl-reversi's 100-square board).")
(defvar *next* reversi::black "The colour to move next, or NIL once neither colour can move.")

(defun square-of (vertex)
  "`E6`/`e6` -> cl-reversi's square 10 * row + column (a1 = 11, h8 = 88), or NIL."
  (when (= (length vertex) 2)
    (let ((column (position (char-downcase (char vertex 0)) "abcdefgh"))
          (row (digit-char-p (char vertex 1))))
      (when (and column row (<= 1 row 8))
        (+ (* 10 row) column 1)))))

(defun vertex-of (square)
  (format nil "~C~D" (char "ABCDEFGH" (1- (mod square 10))) (floor square 10)))

(defun colour-of (word)
  (let ((word (string-downcase word)))
    (cond ((member word '("b" "black") :test #'string=) reversi::black)
          ((member word '("w" "white") :test #'string=) reversi::white))))

(defun discs (colour)
  (count colour *board*))

(defun play-move (colour square)
  "Play SQUARE for COLOUR and work out who moves next (the other colour, or COLOUR again when the
other has to pass, or NIL at the end)."
  (reversi::make-move square colour *board*)
  (setf *next* (reversi::next-to-play *board* colour)))

(defun choose-move (colour depth)
  "Iago's move for COLOUR at DEPTH plies. Its evaluation weighs its terms by the move number,
which the game's disc count gives (a move a disc, passes aside)."
  (setf reversi::*move-number* (- (+ (discs reversi::black) (discs reversi::white)) 3))
  (funcall (reversi::iago depth) colour *board*))

(defun seconds-since (start)
  (/ (- (get-internal-real-time) start) internal-time-units-per-second))

(defun choose-move-in-time (colour seconds max-depth)
  "Iago's move for COLOUR by iterative deepening for SECONDS: depth 1 always ends; each deeper
search runs until the time is up, when it is dropped and the last finished depth's move is played
(the search only writes scratch boards, so an interrupted one leaves the game as it was). It stops
early at MAX-DEPTH or once the depth reaches the end of the game (deeper searches the same tree)."
  (let* ((start (get-internal-real-time))
         (move (choose-move colour 1)))
    (loop for depth from 2 to (min max-depth (count reversi::empty *board*))
          for left = (- seconds (seconds-since start))
          while (> left 0)
          do (let ((deeper (handler-case (sb-ext:with-timeout left (choose-move colour depth))
                             (sb-ext:timeout () nil))))
               (if deeper (setf move deeper) (return))))
    move))

(defun showboard ()
  (with-output-to-string (out)
    (format out "~%  A B C D E F G H")
    (loop for row from 1 to 8
          do (format out "~%~D" row)
             (loop for column from 1 to 8
                   for piece = (aref *board* (+ (* 10 row) column))
                   do (format out " ~C" (cond ((= piece reversi::black) #\X)
                                               ((= piece reversi::white) #\O)
                                               (t #\.)))))
    (format out "~%Next move: ~A"
            (cond ((null *next*) "none (game over)")
                  ((= *next* reversi::black) "Black")
                  (t "White")))))

(defun final-score ()
  "Black's margin with the empty squares given to the winner (`B+10`, `W+4`, `0`)."
  (let* ((black (discs reversi::black))
         (white (discs reversi::white))
         (empty (- 64 black white))
         (margin (cond ((> black white) (+ (- black white) empty))
                       ((< black white) (- (- black white) empty))
                       (t 0))))
    (cond ((> margin 0) (format nil "B+~D" margin))
          ((< margin 0) (format nil "W+~D" (- margin)))
          (t "0"))))

(defparameter *commands*
  '("protocol_version" "name" "version" "known_command" "list_commands" "boardsize"
    "clear_board" "play" "genmove" "showboard" "final_score" "quit"))

(defun split (line)
  (let ((words '()) (start nil))
    (loop for i from 0 to (length line)
          for c = (if (< i (length line)) (char line i) #\Space)
          do (if (member c '(#\Space #\Tab #\Return))
                 (when start (push (subseq line start i) words) (setf start nil))
                 (unless start (setf start i))))
    (nreverse words)))

(defun answer (command arguments depth seconds)
  "(values ok text) for one command; ok NIL makes a `?` answer. Changes nothing unless ok."
  (flet ((fail (text) (return-from answer (values nil text))))
    (cond
      ((string= command "protocol_version") (values t "2"))
      ((string= command "name")
       (values t (if seconds
                     (format nil "Iago (cl-reversi, PAIP) ~A s a move, depth at most ~D" seconds depth)
                     (format nil "Iago (cl-reversi, PAIP) depth ~D" depth))))
      ((string= command "version") (values t "1"))
      ((string= command "known_command")
       (values t (if (member (first arguments) *commands* :test #'equal) "true" "false")))
      ((string= command "list_commands") (values t (format nil "~{~A~^~%~}" *commands*)))
      ((string= command "boardsize")
       (if (equal arguments '("8")) (values t "") (fail "unacceptable size: only 8")))
      ((string= command "clear_board")
       (setf *board* (reversi::initial-board) *next* reversi::black)
       (values t ""))
      ((string= command "play")
       (let ((colour (colour-of (or (first arguments) "")))
             (square (square-of (or (second arguments) ""))))
         (cond ((or (/= (length arguments) 2) (null colour) (null square))
                (fail (format nil "syntax error: play <black|white> <a1-h8>, got ~S" arguments)))
               ((not (reversi::legal-p square colour *board*))
                (fail (format nil "illegal move: ~A for ~(~A~)" (second arguments) (first arguments))))
               (t (play-move colour square) (values t "")))))
      ((string= command "genmove")
       (let ((colour (colour-of (or (first arguments) ""))))
         (cond ((or (/= (length arguments) 1) (null colour))
                (fail (format nil "syntax error: genmove <black|white>, got ~S" arguments)))
               ((not (reversi::any-legal-move? colour *board*)) (values t "pass"))
               (t (let ((square (if seconds (choose-move-in-time colour seconds depth) (choose-move colour depth))))
                    (play-move colour square)
                    (values t (vertex-of square)))))))
      ((string= command "showboard") (values t (showboard)))
      ((string= command "final_score") (values t (final-score)))
      ((string= command "quit") (values t ""))
      (t (fail (format nil "unknown command: ~A" command))))))

(defun serve (depth &optional seconds)
  "Answer GTP on standard input until `quit` or the end of input; each move searched to DEPTH, or,
with SECONDS, deepened within that time up to DEPTH."
  (loop for line = (read-line *standard-input* nil nil)
        while line
        do (let* ((words (split (let ((hash (position #\# line))) (if hash (subseq line 0 hash) line))))
                  (id (when (and words (every #'digit-char-p (first words))) (pop words))))
             (when words
               (multiple-value-bind (ok text)
                   (handler-case (answer (string-downcase (first words)) (rest words) depth seconds)
                     (error (condition) (values nil (format nil "internal error: ~A" condition))))
                 (format t "~C~@[~A~] ~A~%~%" (if ok #\= #\?) id text)
                 (finish-output)
                 (when (and ok (string-equal (first words) "quit"))
                   (return)))))))
