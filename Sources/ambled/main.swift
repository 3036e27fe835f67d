print("ambled")
