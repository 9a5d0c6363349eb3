"""The runtime: Session, Plan, resource managers, devices."""
