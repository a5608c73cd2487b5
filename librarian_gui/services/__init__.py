"""Services: the vault model, its worker threads and the jobs the window asks for.

Threads, and one rule PySide imposes on them. Only the GUI thread connects or disconnects
signals, makes QObjects or QTimers, or deletes them; a worker thread (the updater's, the
layout's, the related notes', a job's) only emits, and starts or stops timers made for it in
the GUI thread. Why: PySide holds the interpreter lock through ``connect`` while Qt takes its
signal-slot mutex (one of a small pool, shared by unrelated objects), and Qt deleting an
object in an event loop, lock let go, holds that mutex while it asks a Python sender's
``disconnectNotify``, which takes the lock. A worker connecting then, or the GUI thread
connecting while a worker deletes, waits for the other forever, the lock held, every Python
thread stopped (a CI run hung that way until its limit; tests/qt/services/test_threads.py).
"""
