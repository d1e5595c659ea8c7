"""What a config becomes, offline: its training image (from the SDK's image data), its cost, its
topology and instance groups' plan, its device mesh. Read by `validate`, `plan` and the SDK
layer; it stands above config/ (what the user wrote) and the strategies."""
