"""The engine of ``cogo experiment`` and ``cogo demo``: train a grid, classify every model, verify, one report.

:mod:`~cogo.commands.grid.config` (the grid's settings and the resume check), :mod:`~cogo.commands.grid.run`
(:func:`~cogo.commands.grid.run.run_experiment`) and :mod:`~cogo.commands.grid.report` (figures and reports).
"""
