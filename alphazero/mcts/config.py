"""`MCTSConfig`: every knob of the batched search in one plain dataclass (a Hydra group later)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

# Solving from more empties than this takes seconds to minutes per position in numba.
MAX_ENDGAME_SOLVE_EMPTIES = 24
# Chosen by measurement (docs/benchmarks.md, "Endgame solver"; experiments/endgame-solver-67, "The
# play threshold at play's defaults"): roots solved exactly from 20 empties, opened nodes
# (win/loss/draw) from 17, with a solved root not searched (search_solved_roots false). With play's
# default network (checkpoints/selfplay-medium.pt) at play's 200 simulations a move, 20/17 costs a
# move what 18/17 does (three seeds on one core: +0.2%, +0.2% and -0.2% of 18/17's time, the
# slowest move 0.58-0.74 s against 0.59-0.78 s), and at the arena's 100 simulations +0.6%: a
# 20-empty solve of issue 67's solver (about 0.2 CPU-s on average) costs what the searches of the
# moves it answers cost. With the small network at 100 simulations, the cheapest search, 20/17
# costs 9% more a move than 18/17 and its slowest move triples (0.32 -> 1.04 s): there
# `--endgame 18` (mcts.endgame_solve_empties=18) keeps the old cost. 18/17 was the default from
# issue 36 (2026-11-27) to 2026-12-08: it cost a move of the small network at 100 simulations no
# more than the search before issue 36 at 16.
# Opened nodes from 18 (20/18) cost the same on average and 1.3-1.4x the slowest move.
# Opened nodes at 18 empties solved at their third visit instead (endgame_revisit_empties 18 with
# endgame_revisit_visits 3, the cheapest way measured to solve them) cost a move 0.8% more than the
# search before issue 36 on average over nine runs (-0.6% to +2.8%; 18/17 -0.4%) and made the
# slowest move 2-3x as long, for no measured strength (0.513 against 18/17 over 200 games), so no
# revisit band is the default (experiments/endgame-solver-36, "Solving at a later visit").
DEFAULT_ENDGAME_SOLVE_EMPTIES = 20
DEFAULT_ENDGAME_WLD_EMPTIES = 17
DEFAULT_ENDGAME_REVISIT_EMPTIES = 0
DEFAULT_ENDGAME_REVISIT_VISITS = 3
# A search by time spends up to this share of a move's time trying to prove a root beyond the
# solver's reach won or drawn (see `endgame_timed_probe_share`; docs/benchmarks.md, "Endgame
# solver").
DEFAULT_ENDGAME_TIMED_PROBE_SHARE = 0.25
ROOT_POLICIES = ("puct", "gumbel")


@dataclass
class MCTSConfig:
    """Search settings. Values are checked in `__post_init__`, so a bad config fails when it is built.

    Attributes:
      simulations: new simulations per `search` call and game (each adds one visit below the root).
      c_puct: exploration constant of the PUCT rule
        `Q(s, a) + c_puct * P(s, a) * sqrt(N(s)) / (1 + N(s, a))`.
      fpu_reduction: first-play urgency. An unvisited child is valued at its parent's mean value (from
        the parent's side to move) minus this amount, so a well-visited good move is not abandoned for
        every untried sibling; 0 values untried moves like the parent itself.
      dirichlet_alpha: concentration of the PUCT root's Dirichlet noise, default 0.3. AlphaZero
        scaled it inversely with the typical number of legal moves, alpha ~ 10 / moves (chess 0.3
        for ~35, Go 0.03 for ~250); for Othello's ~8 moves (8.2 a position over the WTHOR 2018
        games) that rule gives 1.25, a flatter noise. The default stays at the spikier 0.3 (over 8
        moves one move gets 52% of the noise on average, two 75%; at 1.25 32% and 52%) because it
        explores more where it was measured: self-play from the warm start at 128 simulations
        reached 48 / 110 / 116 distinct 4- / 8- / 10-ply openings at 0.3 and 36 / 104 / 113 at
        1.25 (docs/benchmarks.md, "MCTS"). Strength not compared.
      noise_fraction: weight of the noise in the root priors when `search(add_noise=True)`.
      temperature: the chosen move is sampled proportionally to visits ** (1 / temperature) while
        `ply < temperature_plies`; afterwards (or with temperature 0) the most visited move is played.
      temperature_plies: number of plies (from the game's start) that use the temperature.
      virtual_loss: when several leaves are taken per tree and step, each pending visit counts as this
        loss for the player choosing it, spreading the leaves over different lines.
      leaves_per_step: leaves selected per tree before one batched evaluator call. 1 gives exactly the
        sequential algorithm; more gives larger evaluator batches at the cost of virtual-loss bias.
      solver: propagate exact results up the tree (MCTS-Solver, Winands et al. 2008): a node with a
        child proven lost for the opponent, or whose children are all proven, is proven too; its
        parent then uses the exact value as Q, walks stop at it like at a finished game, and the
        final move choice prefers proven wins and avoids proven losses. A node whose side to move
        can wipe the opponent out is proven won when it is expanded, and a root's wipe-out is
        played, whatever the priors say (a network can all but ignore such a reply). Finished
        games are always scored exactly, with or without it.
      tree_reuse: after `advance`, keep the played child's subtree (its visits) for the next search.
      reuse_root_visit_discount: in self-play (`search(add_noise=True)`), a reused root's child
        visits (and value sums, keeping their means) are scaled by this factor, rounded down,
        before the search, so the visits made without this move's root noise weigh less. 1 keeps
        them (off), 0 drops them: the root's visits after the search are then `simulations`.
      forced_playouts_k: KataGo's forced playouts and policy target pruning (Wu 2019, section 3.1),
        in self-play only (`search(add_noise=True)`, root_policy "puct"). During the search a root
        child c with (noisy) prior P(c) and fewer than sqrt(k * P(c) * sum of the root children's
        visits) visits is searched before PUCT is asked, so a move the noise favours gets a real
        look. Afterwards those forced visits are taken out of the policy target: from every child
        but the most visited, visits are removed (at most its forced count) while its PUCT value
        stays below the most visited child's, and a child left with one visit is dropped. The
        move is chosen from the pruned visits too. `SearchResult.visits` stays the raw count.
        0 turns it off; KataGo uses 2.
      root_policy: "puct" (the AlphaZero root: PUCT with Dirichlet noise in self-play, the move by
        visits and temperature, the visit distribution as policy target) or "gumbel" (Gumbel root
        search with sequential halving, Danihelka et al. 2022; see alphazero.mcts.gumbel: Gumbel
        noise instead of Dirichlet in self-play, no temperature, the improved policy
        softmax(logits + sigma(completedQ)) as policy target). Interior nodes use PUCT either way.
      gumbel_sample_plies: with root_policy "gumbel", in self-play (`search(add_noise=True)`) the
        move of each ply < this is drawn proportionally to the root children's visits ** (1 /
        temperature), as the PUCT root draws it before temperature_plies, instead of being the
        halving's winner; the policy target stays the improved policy. The winner is itself about
        a draw from the improved policy, which a sharp policy and a confident value make nearly
        deterministic: from checkpoints/warmstart.pt at 128 simulations, 29 distinct 10-ply
        openings in 128 self-play games against 116 with the PUCT root (docs/benchmarks.md, "MCTS").
        0 (off) plays the winner from the first move, as the paper does. Ignored with root_policy
        "puct"; no effect with temperature 0.
      gumbel_considered_actions: m, the most root actions sequential halving considers (the top m by
        Gumbel + logits). Ignored with root_policy "puct".
      gumbel_c_visit, gumbel_c_scale: sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q in [0, 1]
        (the tree's [-1, 1] values mapped by (v + 1) / 2). Ignored with root_policy "puct".
      reuse_capacity: room for a reused subtree, as a multiple of `simulations`: the tree holds
        `simulations + 1 + ceil(reuse_capacity * simulations)` nodes per game. A subtree that does not
        fit keeps its oldest (shallowest-first) nodes. Ignored without tree reuse.
      endgame_solve_empties: a node with at most this many empty squares is solved exactly by the
        endgame solver (alphazero.solver, win/loss/draw) when the search opens it, instead of being
        evaluated by the network: its value is the exact result and it feeds the solver's proofs.
        A root with at most this many empties is solved for the exact score, and the search plays
        its best move. 0 turns the endgame solver off (opened nodes too, whatever
        `endgame_wld_empties` says). Range 0..MAX_ENDGAME_SOLVE_EMPTIES.
      endgame_wld_empties: opened nodes are solved (win/loss/draw) from this many empties on
        instead of from `endgame_solve_empties` (0: the same). A node's proof needs only the sign,
        and one solve per opened node adds up: set it above `endgame_solve_empties` where those
        solves are cheaper than the evaluations they replace, below it where a root's exact solve
        (once per move) is affordable but a solve per opened node is not. Range
        0..MAX_ENDGAME_SOLVE_EMPTIES.
      endgame_revisit_empties: opened nodes beyond the win/loss/draw reach above
        (`endgame_wld_empties`, else `endgame_solve_empties`) with at most this many empties are
        evaluated by the network when opened, like nodes beyond reach, and solved (win/loss/draw)
        when a walk comes back to them, at their `endgame_revisit_visits`-th visit (0: none).
        Most opened nodes are the tree's frontier and never visited again, so the solves of this
        band shrink to the nodes the search returns to, each at the price of one network
        evaluation; the solves nearest the reach are the dearest, so that is where the trade pays
        (experiments/endgame-solver-36, "Solving at a later visit"). Default 0: at 18 empties, even
        at the third visit, it cost a one-game move 0.8% more on average and doubled the slowest.
      endgame_revisit_visits: the visit at which a revisit-band node is solved (>= 2; default
        3, which measured cheaper than 2 in play: 18/17 with 18 at the third visit cost a move
        what 18/17 with 18 at the fourth did, and 1-2 points less than at the second). At the
        second, no child of the node has been opened yet; from the third on the node has grown a
        subtree (its children within reach solved when opened), which the solve replaces and the
        tree lets go of.
      endgame_probe_empties, endgame_probe_nodes: opened nodes beyond the win/loss/draw reach above
        and the revisit band (`endgame_revisit_empties`) with at most `endgame_probe_empties`
        empties are solved too, but each solve gives up after `endgame_probe_nodes` solver nodes
        and the node is then evaluated by the network as if beyond reach (0: no probes). Solve
        costs are heavy-tailed, so a probe settles the nodes that are cheap to prove (often the
        lopsided ones) at a bounded cost per node; what a given-up probe proved stays in the
        solver's table for the next solve.
      search_solved_roots: what a search does with a root the endgame solver solved exactly (at
        most `endgame_solve_empties` empties). False: nothing more, since the solver's best move is
        played either way: no simulations, no network evaluation, the root's tree emptied; its
        policy is one-hot on that move (an exact policy target: a perfect player's move), its
        value the result's sign, its simulations 0. True: its simulations are still run (their
        visits are its policy target and the candidates an analysis lists), as before 2026-11-27.
        Skipping is what lets a preset solve roots further out at no extra cost: the solve
        replaces the simulations instead of adding to them (docs/benchmarks.md, "Endgame solver").
      endgame_timed_probe_share: a search by time that plays (`seconds` per move: play, GTP clocks,
        NBoard's go, the arena's `seconds=` players; alphazero.engine.timed) first tries to prove a
        root beyond `endgame_solve_empties` (up to MAX_ENDGAME_SOLVE_EMPTIES) won or drawn with a
        win/loss/draw solve, given this share of the move's time as a node limit at the solver's
        measured speed; a root so proven is answered with the solver's move, anything else is
        searched in the time left. Searches by simulations and analyses never probe. 0: off. In [0, 1).
      endgame_solver_options: the endgame solver's techniques, as `SearchOptions.parse` reads them:
        "default", "off" for the solver before issue 36 (to measure what they changed), or either
        with switches (e.g. "default-patterns": the mobility ordering instead of the patterns).
      endgame_table_bits: the endgame solver's transposition table has 2**bits entries (24 bytes
        each), allocated once per search object.
    """

    simulations: int = 100
    c_puct: float = 1.5
    fpu_reduction: float = 0.25
    dirichlet_alpha: float = 0.3
    noise_fraction: float = 0.25
    temperature: float = 1.0
    temperature_plies: int = 20
    virtual_loss: float = 1.0
    leaves_per_step: int = 1
    solver: bool = True
    tree_reuse: bool = True
    reuse_root_visit_discount: float = 1.0
    forced_playouts_k: float = 0.0
    reuse_capacity: float = 1.0
    root_policy: str = "puct"
    gumbel_sample_plies: int = 0
    gumbel_considered_actions: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
    endgame_solve_empties: int = DEFAULT_ENDGAME_SOLVE_EMPTIES
    endgame_wld_empties: int = DEFAULT_ENDGAME_WLD_EMPTIES
    endgame_revisit_empties: int = DEFAULT_ENDGAME_REVISIT_EMPTIES
    endgame_revisit_visits: int = DEFAULT_ENDGAME_REVISIT_VISITS
    endgame_probe_empties: int = 0
    endgame_probe_nodes: int = 20_000
    endgame_timed_probe_share: float = DEFAULT_ENDGAME_TIMED_PROBE_SHARE
    search_solved_roots: bool = False
    endgame_solver_options: str = "default"
    endgame_table_bits: int = 18

    def __post_init__(self):
        _require(_integer(self.simulations) and self.simulations >= 1, "simulations", "an integer >= 1",
                 self.simulations)
        _require(_finite(self.c_puct) and self.c_puct >= 0, "c_puct", "a finite number >= 0", self.c_puct)
        _require(_finite(self.fpu_reduction), "fpu_reduction", "a finite number", self.fpu_reduction)
        _require(_finite(self.dirichlet_alpha) and self.dirichlet_alpha > 0, "dirichlet_alpha", "> 0",
                 self.dirichlet_alpha)
        _require(_finite(self.noise_fraction) and 0 <= self.noise_fraction <= 1, "noise_fraction",
                 "in [0, 1]", self.noise_fraction)
        _require(_finite(self.temperature) and self.temperature >= 0, "temperature", ">= 0", self.temperature)
        _require(_integer(self.temperature_plies) and self.temperature_plies >= 0, "temperature_plies",
                 "an integer >= 0", self.temperature_plies)
        _require(_finite(self.virtual_loss) and self.virtual_loss >= 0, "virtual_loss", ">= 0",
                 self.virtual_loss)
        _require(_integer(self.leaves_per_step) and self.leaves_per_step >= 1, "leaves_per_step",
                 "an integer >= 1", self.leaves_per_step)
        _require(_finite(self.reuse_root_visit_discount) and 0 <= self.reuse_root_visit_discount <= 1,
                 "reuse_root_visit_discount", "in [0, 1] (1 = off)", self.reuse_root_visit_discount)
        _require(_finite(self.forced_playouts_k) and self.forced_playouts_k >= 0, "forced_playouts_k",
                 "a finite number >= 0 (0 = off)", self.forced_playouts_k)
        _require(self.root_policy in ROOT_POLICIES, "root_policy", " or ".join(ROOT_POLICIES), self.root_policy)
        _require(_integer(self.gumbel_sample_plies) and self.gumbel_sample_plies >= 0, "gumbel_sample_plies",
                 "an integer >= 0 (0 = off)", self.gumbel_sample_plies)
        _require(_integer(self.gumbel_considered_actions) and self.gumbel_considered_actions >= 1,
                 "gumbel_considered_actions", "an integer >= 1", self.gumbel_considered_actions)
        _require(_finite(self.gumbel_c_visit) and self.gumbel_c_visit >= 0, "gumbel_c_visit", ">= 0",
                 self.gumbel_c_visit)
        _require(_finite(self.gumbel_c_scale) and self.gumbel_c_scale >= 0, "gumbel_c_scale", ">= 0",
                 self.gumbel_c_scale)
        _require(_finite(self.reuse_capacity) and self.reuse_capacity >= 0, "reuse_capacity", ">= 0",
                 self.reuse_capacity)
        _require(_integer(self.endgame_solve_empties)
                 and 0 <= self.endgame_solve_empties <= MAX_ENDGAME_SOLVE_EMPTIES, "endgame_solve_empties",
                 f"an integer in 0..{MAX_ENDGAME_SOLVE_EMPTIES} (0 = off)", self.endgame_solve_empties)
        _require(_integer(self.endgame_wld_empties) and 0 <= self.endgame_wld_empties <= MAX_ENDGAME_SOLVE_EMPTIES,
                 "endgame_wld_empties", f"an integer in 0..{MAX_ENDGAME_SOLVE_EMPTIES} (0 = endgame_solve_empties)",
                 self.endgame_wld_empties)
        _require(_integer(self.endgame_revisit_empties)
                 and 0 <= self.endgame_revisit_empties <= MAX_ENDGAME_SOLVE_EMPTIES, "endgame_revisit_empties",
                 f"an integer in 0..{MAX_ENDGAME_SOLVE_EMPTIES} (0 = none)", self.endgame_revisit_empties)
        _require(_integer(self.endgame_revisit_visits) and self.endgame_revisit_visits >= 2, "endgame_revisit_visits",
                 "an integer >= 2", self.endgame_revisit_visits)
        _require(_integer(self.endgame_probe_empties) and 0 <= self.endgame_probe_empties <= MAX_ENDGAME_SOLVE_EMPTIES,
                 "endgame_probe_empties", f"an integer in 0..{MAX_ENDGAME_SOLVE_EMPTIES} (0 = no probes)",
                 self.endgame_probe_empties)
        _require(_integer(self.endgame_probe_nodes) and self.endgame_probe_nodes >= 1, "endgame_probe_nodes",
                 "an integer >= 1", self.endgame_probe_nodes)
        _require(_finite(self.endgame_timed_probe_share) and 0 <= self.endgame_timed_probe_share < 1,
                 "endgame_timed_probe_share", "in [0, 1) (0 = off)", self.endgame_timed_probe_share)
        _require(isinstance(self.search_solved_roots, bool), "search_solved_roots", "true or false",
                 self.search_solved_roots)
        _require(isinstance(self.endgame_solver_options, str) and _solver_options_ok(self.endgame_solver_options),
                 "endgame_solver_options", "a solver switch set such as default, off or off+etc",
                 self.endgame_solver_options)
        _require(_integer(self.endgame_table_bits) and 8 <= self.endgame_table_bits <= 28, "endgame_table_bits",
                 "an integer in 8..28", self.endgame_table_bits)

    def with_endgame_reach(self, empties: int) -> MCTSConfig:
        """This config solving roots and opened nodes from `empties` (0: no solver) and nothing
        further out (no probes): the one reach of the arena's `endgame=E` and `play --endgame N`
        (`bench mcts --endgame N` sets the same), so those keep one meaning whatever the defaults."""
        return dataclasses.replace(self, endgame_solve_empties=empties, endgame_wld_empties=0,
                                   endgame_revisit_empties=0, endgame_probe_empties=0)

    @property
    def leaf_solve_empties(self) -> int:
        """Opened nodes with at most this many empties are solved (win/loss/draw); 0 = none."""
        if self.endgame_solve_empties == 0:
            return 0
        return self.endgame_wld_empties or self.endgame_solve_empties

    @property
    def leaf_revisit_empties(self) -> int:
        """Opened nodes with more empties than `leaf_solve_empties` and at most this many are
        solved at their `endgame_revisit_visits`-th visit (the network evaluates them when
        opened); 0 or not above the reach: none."""
        if self.endgame_solve_empties == 0 or self.endgame_revisit_empties <= self.leaf_solve_empties:
            return 0
        return self.endgame_revisit_empties

    @property
    def leaf_probe_empties(self) -> int:
        """Opened nodes with more empties than `leaf_solve_empties` and `leaf_revisit_empties` and
        at most this many are probed (a solve limited to `endgame_probe_nodes` nodes); 0 or not
        above those: none."""
        if (self.endgame_solve_empties == 0
                or self.endgame_probe_empties <= max(self.leaf_solve_empties, self.leaf_revisit_empties)):
            return 0
        return self.endgame_probe_empties

    @property
    def node_capacity(self) -> int:
        """Nodes per game tree: the root, one per simulation, and the reuse headroom."""
        headroom = math.ceil(self.reuse_capacity * self.simulations) if self.tree_reuse else 0
        return self.simulations + 1 + headroom


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _require(condition: bool, field: str, expected: str, value) -> None:
    if not condition:
        raise ValueError(f"mcts.{field} must be {expected}, got {value!r}")


def _solver_options_ok(text: str) -> bool:
    from alphazero.solver.solver import SearchOptions

    try:
        SearchOptions.parse(text)
    except ValueError:
        return False
    return True
