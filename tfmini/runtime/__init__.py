"""The runtime: Session; plans (analysis, steps, codegen, executors); resource managers."""
