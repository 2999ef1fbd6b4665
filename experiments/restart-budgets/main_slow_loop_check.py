"""On main: a crash loop with a death every 601 s (max_restarts=2, window 600 s) is never stopped."""
from alphazero.selfplay.restarts import RestartBudget
now = [0.0]
budget = RestartBudget("self-play worker 0", max_restarts=2, window_seconds=600, clock=lambda: now[0])
for death in range(1, 101):
    budget.died(1)  # raises ProcessKeepsDying once the budget is spent
    now[0] += 601
print(f"main: {death} deaths 601 s apart, never stopped")
