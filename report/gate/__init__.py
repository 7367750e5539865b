"""`compare`: the regression gate between two runs on one device, its noise floors, its
false-alarm measurement and the choice of a baseline file."""
