"""The kernels the build starts talk to it over CurveZMQ-encrypted TCP.

ipykernel 7.4 warns, on stderr, "Kernel is running over TCP without encryption" when its
connection file carries no CurveZMQ keys, once per chapter the build executes. The keys are
provisioned by the kernel manager (jupyter_client >= 8.9): ``KernelManager.transport_encryption``
is ``"disabled"`` by default, and ``"auto"`` provisions them for a kernel whose kernelspec
declares ``supported_encryption: ["curve"]`` (ipykernel's does). MyST-NB creates its
kernel manager without any traitlets configuration (no config file is read), so the
setting cannot be given as one: this sets the trait's default in the build's process,
before MyST-NB starts a kernel. A kernel that does not declare support runs as before.
"""

from __future__ import annotations


def setup(app):
    import zmq
    from jupyter_client.manager import KernelManager

    if zmq.has("curve"):
        KernelManager.transport_encryption.default_value = "auto"
    return {"parallel_read_safe": True, "parallel_write_safe": True}
