"""A model of the GPU self-play pipeline that runs on a CPU: the serial inference server against
`selfplay.server_pipeline`. W worker processes each spin `search_ms` of CPU per request (their tree
search), then ask the real server loop (`inference_server.serve`) over the real shared-memory
slots; the server's "device" is a fake asynchronous one: a batch is done fixed_ms + per_pos_us per
position after the device is free (an event that sleeps), and launching it costs launch_ms of the
server's CPU. Not a GPU measurement: it shows whether overlapping the server's own work with the
device's changes the throughput of this protocol. Run: python experiments/gpu-next/pipeline_model.py"""
import multiprocessing as mp, sys, time
import numpy as np

class Event:
    def __init__(self, start_at, seconds): self.done_at = start_at + seconds
    def query(self): return time.perf_counter() >= self.done_at
    def synchronize(self): time.sleep(max(0.0, self.done_at - time.perf_counter()))

class Device:
    free_at = 0.0

class Instant:
    def evaluate_packed(self, packed):
        import torch
        n = packed.shape[0]
        return torch.full((n, 65), 1 / 65.0), torch.zeros(n)

def run_server(channels, pipeline, fixed_ms, per_pos_us, launch_ms):
    import torch
    from alphazero.selfplay import inference_server as s
    real = s._launch
    device = Device()
    def launch(gatherer, evaluator, parts, buffer, dev):
        t = time.perf_counter() + launch_ms / 1e3
        while time.perf_counter() < t: pass           # host-side launch cost
        batch = real(gatherer, evaluator, parts, buffer, dev)
        start = max(time.perf_counter(), device.free_at)  # the device runs batches one after another
        batch.event = Event(start, (fixed_ms / 1e3) + batch.total * per_pos_us / 1e6)
        device.free_at = batch.event.done_at
        return batch
    s._launch = launch
    s.serve(channels, lambda: Instant(), 1 << 20, 1.0, torch.device("cpu"), pipeline=pipeline)

def worker(channels, w, search_ms, n, seconds, out):
    from alphazero.selfplay.inference_server import RemoteEvaluator
    remote = RemoteEvaluator(w, channels)
    pos = np.zeros((n, 2), np.uint64); pos[:, 0] = 0x0000000810000000; pos[:, 1] = 0x0000001008000000
    end = time.perf_counter() + seconds; calls = 0; waited = 0.0
    while time.perf_counter() < end:
        t = time.perf_counter() + search_ms / 1e3
        while time.perf_counter() < t: pass
        a = time.perf_counter(); remote(pos); waited += time.perf_counter() - a; calls += 1
    out.put((calls, waited))

if __name__ == "__main__":
    from alphazero.selfplay.inference_server import SharedChannels, STOP, server_stats
    W, search_ms, n, fixed_ms, per_pos_us, launch_ms = 2, 4.0, 512, 1.0, 4.0, 1.5
    for pipeline in (False, True):
        ctx = mp.get_context("spawn")
        ch = SharedChannels.create(W, n)
        srv = ctx.Process(target=run_server, args=(ch, pipeline, fixed_ms, per_pos_us, launch_ms), daemon=True); srv.start()
        time.sleep(3)
        out = ctx.Queue()
        ws = [ctx.Process(target=worker, args=(ch, w, search_ms, n, 8.0, out)) for w in range(W)]
        s0 = server_stats(ch)
        for p in ws: p.start()
        res = [out.get() for _ in ws]
        for p in ws: p.join()
        s1 = server_stats(ch)
        calls = sum(c for c, _ in res)
        print(f"pipeline={pipeline}: {calls * n / 8.0:.0f} positions/s, mean batch {(s1['positions']-s0['positions'])/max(1,s1['calls']-s0['calls']):.0f}, "
              f"worker waiting {sum(wt for _, wt in res)/(W*8.0):.2f}")
        ch.server[STOP] = 1; srv.join(5); ch.unlink()
