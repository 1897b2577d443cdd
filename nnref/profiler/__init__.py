"""``nnref.profiler``: PyTorch's ``torch.profiler`` API over nnref's CPU profiler
(``torch/profiler/profiler.py``; the recording itself is ``nnref/autograd/profiler.py``).

``with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:`` records the
block's ops; ``schedule(wait=, warmup=, active=)`` with ``prof.step()`` records only the active
steps of a training loop and hands each finished window to ``on_trace_ready``
(``tensorboard_trace_handler(dir)`` writes it as a Chrome trace).  Only ``ProfilerActivity.CPU``
is recorded: asking for CUDA raises ``NotImplementedError``.
"""
import enum
import os
import socket
import time
import warnings

from .._namespace import public_dir
from ..autograd.profiler import EventList, profile as _autograd_profile, record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """What a profile records (``torch.profiler.ProfilerActivity``); nnref records ``CPU``."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a ``schedule`` tells the profiler to do at a step (``torch.profiler.ProfilerAction``)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities nnref's profiler records: the CPU only."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The step -> action function of ``torch.profiler.schedule``: skip ``skip_first`` steps, then
    repeat ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps (``repeat`` times,
    0 for ever); the last active step of each cycle is ``RECORD_AND_SAVE``."""
    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


_WARNINGS_SHOWN = set()


def _warn_once(message):
    """PyTorch warns of this once per process (``torch/profiler/profiler.py``)."""
    if message not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def _always_record(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each finished profile to ``dir_name`` as
    ``{worker_name}.{time in ms}.pt.trace.json`` (``torch.profiler.tensorboard_trace_handler``)."""
    if use_gzip:
        raise NotImplementedError("nnref's trace handler writes plain JSON: use_gzip must be False")

    def handler_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(dir_name, f"{name}.{time.time_ns() // 1_000_000}.pt.trace.json"))
    return handler_fn


class profile(_autograd_profile):
    """``torch.profiler.profile``: the CPU profile of a block, or with ``schedule`` and
    :meth:`step` the recorded steps of a loop (see the module docstring)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        activities = set(activities) if activities is not None else supported_activities()
        if activities - {ProfilerActivity.CPU}:
            raise NotImplementedError(f"nnref's profiler records ProfilerActivity.CPU only, not "
                                      f"{sorted(a.name for a in activities - {ProfilerActivity.CPU})}")
        if execution_trace_observer is not None:
            raise NotImplementedError("nnref's profiler has no execution trace observer")
        super().__init__(use_cuda=bool(use_cuda), record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules)
        self.activities, self.schedule, self.on_trace_ready = activities, schedule or _always_record, on_trace_ready
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._recording = False
        self._windows = []

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.stop()
        return False

    def start(self):
        """Start recording if the schedule's first action records."""
        self._act(None, self.current_action)

    def stop(self):
        """Stop recording; a window still open is handed to ``on_trace_ready``."""
        if self._recording:
            self._finish_window(save=True)

    def step(self):
        """Tell the profiler one step of the loop has ended: it follows the schedule."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._act(previous, self.current_action)

    def _act(self, previous, action):
        if previous == ProfilerAction.RECORD_AND_SAVE and self._recording:
            self._finish_window(save=True)
        recording = action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if recording and not self._recording:
            if self._windows and not self.acc_events:
                _warn_once("Warning: Profiler clears events at the end of each cycle. Only events from the current "
                           "cycle will be reported. To keep events across cycles, set acc_events=True.")
            self._start()
            self._recording = True
        elif not recording and self._recording:
            self._finish_window(save=False)

    def _finish_window(self, save):
        self._stop()
        self._recording = False
        self._windows.append(self.function_events)
        if self.acc_events:  # every window's events, not only the last one's
            self.function_events = EventList(event for window in self._windows for event in window)
        if save and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def events(self):
        """The calls of the last recorded window."""
        return super().events()


__dir__ = public_dir(globals(), __all__)
