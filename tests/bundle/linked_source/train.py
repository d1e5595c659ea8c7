print("linked")
