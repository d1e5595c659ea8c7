"""The readable `plan` view: job, image, cluster tree, hyperparameters, channels, cost, upload,
the job queue."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from sagelaunch import resource_config
from sagelaunch.output import stdout
from sagelaunch.plan.image_cuda import plan_note
from sagelaunch.plan_model import Cost, Plan, QueuedPlan, Topology, Upload

MAX_HOSTS_SHOWN = 4


def render(plan: Plan) -> None:
    request = plan.request
    spec = request["AlgorithmSpecification"]
    stdout.print(f"[bold]job[/bold]    {plan.job_name}  ({plan.region})")
    stdout.print(f"[bold]class[/bold]  {plan.estimator.class_name}")
    stdout.print(f"[bold]image[/bold]  {spec['TrainingImage']}{plan_note(spec['TrainingImage'])}")
    stdout.print(_topology_tree(plan.topology, request["ResourceConfig"]))
    _preferences(request["ResourceConfig"])
    stdout.print(_hyperparameters(request.get("HyperParameters", {})))
    if request.get("InputDataConfig"):
        stdout.print(_channels(request["InputDataConfig"]))
    if request.get("Environment"):
        environment = ", ".join(f"{k}={v}" for k, v in request["Environment"].items())
        stdout.print(f"[bold]env[/bold]    {escape(environment)}", highlight=False)
    _stopping(request)
    _cost(plan.cost)
    _layout_figures(request, plan.topology)
    _upload(plan.upload)
    if plan.queue is not None:
        _queue(plan.queue)
    if plan.tuning is not None:
        from sagelaunch.commands.tuning_view import render_tuning_plan

        render_tuning_plan(plan.tuning)
    # The plan's warnings are not part of the view: `plan` prints them on stderr.


def _mesh(dims: dict[str, int]) -> str:
    names = ("dp_replicate", "dp_shard", "pp", "tp")
    return f" · mesh {' × '.join(f'{n} {dims[n]}' for n in names)}"


def _topology_tree(topology: Topology, resources: dict[str, Any]) -> Tree:
    if topology.groups:
        return _groups_tree(topology)
    hosts, per_host = topology.hosts, topology.processes_per_host
    instance_type = resource_config.planned(resources)[0]
    if topology.unknown:
        return Tree(
            f"[bold]cluster[/bold] {hosts} × {instance_type} · {topology.launcher} · "
            f"{hosts} hosts × unknown processes = world size unknown ({topology.unknown})"
        )
    tree = Tree(
        f"[bold]cluster[/bold] {hosts} × {instance_type} · {topology.launcher} · "
        f"{hosts} hosts × {per_host} processes = world size {topology.world_size}"
        + (_mesh(topology.mesh) if topology.mesh else "")
    )
    for index in range(min(hosts, MAX_HOSTS_SHOWN)):
        first = index * per_host
        ranks = f"rank {first}" if per_host == 1 else f"ranks {first}–{first + per_host - 1}"
        tree.add(f"algo-{index + 1}: {per_host} process{'es' if per_host > 1 else ''} ({ranks})")
    if hosts > MAX_HOSTS_SHOWN:
        tree.add(f"… {hosts - MAX_HOSTS_SHOWN} more hosts")
    return tree


def _preferences(resources: dict[str, Any]) -> None:
    """Flexible instance selection: the cluster above is the first preference's."""
    listed = resource_config.preferences(resources)
    if not listed:
        return
    choices = " · ".join(f"{n}. {count} × {kind}" for n, (kind, count) in enumerate(listed, 1))
    stdout.print(
        f"[bold]instance preferences[/bold] {choices} (SageMaker starts the first with capacity; "
        "the cluster shown is the first's)",
        highlight=False,
    )


def _groups_tree(topology: Topology) -> Tree:
    """A heterogeneous cluster: one branch per instance group, the training group marked."""
    groups = topology.groups or []
    tree = Tree(
        f"[bold]cluster[/bold] {len(groups)} instance groups · {topology.launcher} on the "
        f"training group: {topology.hosts} hosts × {topology.processes_per_host} processes = "
        f"world size {topology.world_size}"
    )
    for group in groups:
        price = f"${group['hourly_usd']}/h" if group["hourly_usd"] is not None else "price unknown"
        role = f"trains ({group['launcher']})" if group["trains"] else "plain process per host"
        tree.add(
            f"{group['name']}: {group['hosts']} × {group['instance_type']} · "
            f"{group['accelerators_per_host']} accelerators/host · {price} · {role}"
        )
    return tree


def _hyperparameters(hyperparameters: dict[str, str]) -> Table:
    table = Table(title="hyperparameters (as sent)", title_justify="left", box=None)
    table.add_column("key", overflow="fold")
    table.add_column("value", overflow="fold")
    for key, value in hyperparameters.items():
        style = "dim" if key.startswith("sagemaker_") or key == "mp_parameters" else ""
        table.add_row(key, value, style=style)
    return table


def _channels(channels: list[dict[str, Any]]) -> Table:
    table = Table(title="channels", title_justify="left", box=None)
    for column in ("name", "source", "distribution", "content type", "mode"):
        table.add_column(column)
    for channel in channels:
        source = channel["DataSource"]
        if "S3DataSource" in source:
            s3 = source["S3DataSource"]
            where, distribution = s3["S3Uri"], s3["S3DataDistributionType"]
        else:
            fs = source["FileSystemDataSource"]
            where = f"{fs['FileSystemType']} {fs['FileSystemId']}:{fs['DirectoryPath']}"
            distribution = "-"
        table.add_row(
            channel["ChannelName"],
            where,
            distribution,
            channel.get("ContentType", "-"),
            channel.get("InputMode", "File"),
        )
    return table


def _queue(queued: QueuedPlan) -> None:
    """Where the job waits: the queue and how Batch schedules, retries and times it out."""
    request = queued.request
    parts = [f"priority {request.get('schedulingPriority', 0)}"]
    parts += [f"share {request['shareIdentifier']}"] if "shareIdentifier" in request else []
    parts += [f"quota share {request['quotaShareName']}"] if "quotaShareName" in request else []
    parts.append(f"{request['retryStrategy']['attempts']} attempt(s)")
    parts.append(f"attempt timeout {request['timeoutConfig']['attemptDurationSeconds']}s")
    stdout.print(
        f"[bold]queue[/bold]  {escape(queued.queue)} · {' · '.join(parts)} · sent as "
        f"SubmitServiceJob ({request['serviceJobType']}), clientToken {request['clientToken']}",
        highlight=False,
    )


def _stopping(request: dict[str, Any]) -> None:
    stopping = request["StoppingCondition"]
    line = f"[bold]stopping[/bold] max_run {stopping['MaxRuntimeInSeconds']}s"
    if request.get("EnableManagedSpotTraining"):
        line += f" · spot, max_wait {stopping.get('MaxWaitTimeInSeconds')}s"
    if stopping.get("MaxPendingTimeInSeconds"):
        line += f" · max_pending {stopping['MaxPendingTimeInSeconds']}s"
    if request.get("CheckpointConfig"):
        checkpoint = request["CheckpointConfig"]
        line += f" · checkpoints {checkpoint.get('LocalPath', '/opt/ml/checkpoints')} ⇄ "
        line += checkpoint["S3Uri"]
    stdout.print(line, highlight=False)


def _cost(cost: Cost) -> None:
    """The price with where it comes from and its date (or age), or "unknown" and why."""
    note = cost.note
    if cost.hourly_usd is None:
        text, note = f"unknown: {note}" if note else "unknown", None
    elif cost.groups:
        text = (
            f"${cost.hourly_usd}/h for {cost.instance_type} = at most ${cost.max_usd} for "
            f"max_run ({cost.price_region} prices as of {cost.prices_as_of})"
        )
    else:
        text = (
            f"${cost.hourly_usd}/h × {cost.instance_count} = at most "
            f"${cost.max_usd} for max_run ({cost.price_region} prices as of {cost.prices_as_of})"
        )
    stdout.print(f"[bold]cost[/bold]   {escape(text)}", highlight=False)
    if cost.hourly_usd is not None and cost.groups and len(_group_sources(cost)) > 1:
        for group in cost.groups:
            line = f"price: {group['name']} ({group['instance_type']}): {group['price_source']}"
            stdout.print(f"       [dim]{escape(line)}[/dim]", highlight=False)
    elif cost.price_source:
        stdout.print(f"       [dim]price: {escape(cost.price_source)}[/dim]", highlight=False)
    if note:
        stdout.print(f"       [dim]{escape(note)}[/dim]", highlight=False)


def _group_sources(cost: Cost) -> set[str]:
    return {str(group.get("price_source")) for group in cost.groups or []}


def _layout_figures(request: dict[str, Any], topology: Topology) -> None:
    """recommend's memory model and roofline step for train_pytorch.py's GPT (table view only;
    the plan's JSON stays the request)."""
    from sagelaunch.recommend.from_hyperparameters import job_figures

    found = job_figures(
        request.get("HyperParameters", {}),
        _training_instance_type(request, topology),
        topology.hosts,
    )
    if found is None:
        return
    mem, speed = found.memory, found.speed
    per_dollar = speed.tokens_per_dollar
    stdout.print(
        f"[bold]memory[/bold] {mem.total:.1f} of {found.device_memory_gb:g} GB per GPU "
        f"(weights {mem.weights:.1f}, grads {mem.gradients:.1f}, optimizer {mem.optimizer:.1f}, "
        f"activations {mem.activations:.1f}, other {mem.overhead:.1f}) · roofline step "
        f"{speed.seconds:.2f} s, {speed.tokens_per_s:,.0f} tokens/s"
        + (f", {per_dollar / 1e6:.2f}M tokens per dollar" if per_dollar else ""),
        highlight=False,
    )


def _training_instance_type(request: dict[str, Any], topology: Topology) -> str:
    """The instance type that trains: with instance groups (no ResourceConfig.InstanceType), the
    group that runs the launcher, whose hosts topology.hosts counts."""
    if topology.groups:
        return str(next(g["instance_type"] for g in topology.groups if g["trains"]))
    return str(resource_config.planned(request["ResourceConfig"])[0])


def _upload(upload: Upload | None) -> None:
    if not upload:
        stdout.print("[bold]upload[/bold] nothing (built-in algorithm)")
        return
    stdout.print(
        f"[bold]upload[/bold] {len(upload.files)} files, {upload.bytes:,} bytes "
        f"({upload.compressed_bytes:,} compressed) → {upload.s3_uri}",
        highlight=False,
    )


def render_alternatives(rows: list[dict[str, Any]], main_region: str) -> None:
    """The failover chain after the main plan: each alternative and its price, and the image
    of each alternative in another region (each region's registry serves its own)."""
    table = Table(title="failover chain (compute.fallback)", title_justify="left")
    for column in ("attempt", "cluster", "region", "market", "$/h", "at most"):
        table.add_column(column)
    for row in rows:
        hourly = "unknown" if row["hourly_usd"] is None else f"${row['hourly_usd']}"
        ceiling = "unknown" if row["max_usd"] is None else f"${row['max_usd']}"
        table.add_row(
            str(row["attempt"]),
            f"{row['instance_count']} × {row['instance_type']}",
            str(row["region"] or "-"),
            "spot" if row["spot"] else "on demand",
            hourly,
            ceiling,
        )
    stdout.print(table)
    for row in rows:
        if row["region"] and row["region"] != main_region:
            image = row["image"] or "none resolves: set image_uri"
            stdout.print(f"  attempt {row['attempt']} image  {image}", highlight=False)


def render_training_plans(plans: list[dict[str, Any]]) -> None:
    """Each training plan the job runs on, as DescribeTrainingPlan told it: its status, window,
    reserved instances and upfront fee (the plan is paid for up front, not by the hour)."""
    from sagelaunch.services import plan_capacity as figures

    for plan in plans:
        stdout.print(
            f"[bold]training plan[/bold] {escape(str(plan.get('TrainingPlanName')))}  "
            f"{plan.get('Status')} · {figures.window(plan)} · {figures.holding(plan)} "
            f"({figures.availability(plan)}) · upfront fee {figures.fee(plan)}",
            highlight=False,
        )
