print("golden stand-in for train_pytorch.py")
