"""What the commands do, without the command line: planning (with its cache), submitting (with the
safe attach) and local runs. Commands parse options, call one service and render its result."""
