from hypothesis import settings

# No per-example deadline: speed is measured in benchmarks, never asserted here.
settings.register_profile("agentmetrics-trajectory", deadline=None, print_blob=True)
settings.load_profile("agentmetrics-trajectory")
