"""Where bot turns run: a pool of threads in the serving process, or RQ jobs for `cardems
worker`s. Both hand each turn to the application service (`service`), the one way in."""
