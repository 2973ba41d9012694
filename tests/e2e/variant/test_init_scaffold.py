"""End-to-end tests of `kernel-builder init`: scaffold, collision check, overwrite, names, git."""
import os
import subprocess
from pathlib import Path

import pytest

NOT_LOGGED_IN = (
    "Not logged in to Hugging Face. Run `hf auth login` first, or use --name <owner/repo> "
    "to skip auto-detection."
)


def run(binary, *args, cwd, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([str(binary), *args], cwd=cwd, env=full_env, capture_output=True, text=True)


def next_steps(cd: str) -> str:
    return (
        "\nNext steps:\n"
        f"  cd {cd}\n"
        "  kernel-builder build     # build/<variant>/ for every toolchain found (`list-variants --mark`)\n"
        "  kernel-builder upload    # to the Hub at HF_ENDPOINT, with HF_TOKEN\n"
    )


def tracked_files(repo: Path):
    out = subprocess.run(["git", "-C", str(repo), "diff", "--cached", "--name-only"], capture_output=True, text=True)
    return sorted(out.stdout.split())


def test_init_creates_a_valid_staged_project(kernel_builder, tmp_path):
    r = run(kernel_builder, "init", "--name", "myorg/my_kernel", "--backends", "cuda", "cpu", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    project = tmp_path / "my-kernel"
    assert (r.stdout, r.stderr) == ("", f"Initialized `myorg/my-kernel` at {project}\n" + next_steps("my-kernel"))
    expected = [
        ".gitattributes", ".gitignore", "CARD.md", "benchmarks/benchmark.py", "build.toml", "example.py",
        "flake.nix", "my_kernel_cpu/my_kernel_cpu.cpp", "my_kernel_cuda/my_kernel.cu", "tests/__init__.py",
        "tests/test_my_kernel.py", "torch-ext/my_kernel/__init__.py", "torch-ext/torch_binding.cpp",
        "torch-ext/torch_binding.h",
    ]
    assert tracked_files(project) == expected
    check = run(kernel_builder, "check-config", str(project), cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert check.stdout == ""
    binding = (project / "torch-ext/torch_binding.cpp").read_text()
    assert '#include "registration.h"' in binding
    assert "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)" in binding
    assert "REGISTER_EXTENSION(TORCH_EXTENSION_NAME)" in binding
    assert "from ._ops import ops" in (project / "torch-ext/my_kernel/__init__.py").read_text()
    assert "{% raw %}" not in (project / "CARD.md").read_text()
    assert "{{ repo_id }}" in (project / "CARD.md").read_text()


def test_init_all_backends_passes_check_config(kernel_builder, tmp_path):
    r = run(kernel_builder, "init", "proj", "--name", "org/addone", "--backends", "all", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (r.stdout, r.stderr) == ("", f"Initialized `org/addone` at {tmp_path / 'proj'}\n" + next_steps("proj"))
    toml = (tmp_path / "proj/build.toml").read_text()
    assert 'backends = ["cpu", "cuda", "metal", "rocm", "xpu"]' in toml
    assert "gfx940" not in toml
    assert run(kernel_builder, "check-config", "proj", cwd=tmp_path).returncode == 0


def test_init_refuses_existing_files_and_writes_nothing(kernel_builder, tmp_path):
    target = tmp_path / "k"
    target.mkdir()
    (target / "build.toml").write_text("mine\n")
    (target / "example.py").write_text("mine\n")
    r = run(kernel_builder, "init", str(target), "--name", "org/k2", cwd=tmp_path)
    assert r.returncode == 1
    assert "File(s) already exists in target directory: build.toml, example.py\nUse `--overwrite` to overwrite." in r.stderr
    assert sorted(p.name for p in target.iterdir()) == ["build.toml", "example.py"]
    assert (target / "build.toml").read_text() == "mine\n"


def test_init_overwrite_replaces_scaffold_files_only(kernel_builder, tmp_path):
    target = tmp_path / "k"
    target.mkdir()
    (target / "build.toml").write_text("mine\n")
    (target / "README.txt").write_text("keep\n")
    r = run(kernel_builder, "init", str(target), "--name", "org/k2", "--backends", "cpu", "--overwrite", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'name = "k2"' in (target / "build.toml").read_text()
    assert (target / "README.txt").read_text() == "keep\n"
    assert "README.txt" not in tracked_files(target)


def test_init_path_as_owner_repo(kernel_builder, tmp_path):
    r = run(kernel_builder, "init", "org/fast_gelu", "--backends", "cpu", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (r.stdout, r.stderr) == ("", f"Initialized `org/fast-gelu` at {tmp_path / 'fast-gelu'}\n" + next_steps("fast-gelu"))
    assert (tmp_path / "fast-gelu/fast_gelu_cpu/fast_gelu_cpu.cpp").is_file()


@pytest.mark.parametrize("name", ["noslash", "a/b/c", "/repo", "owner/"])
def test_init_rejects_malformed_name(kernel_builder, tmp_path, name):
    r = run(kernel_builder, "init", "--name", name, cwd=tmp_path)
    assert r.returncode == 2
    assert "must be <owner>/<repo>" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_rejects_invalid_kernel_name(kernel_builder, tmp_path):
    r = run(kernel_builder, "init", "--name", "org/MyKernel", cwd=tmp_path)
    assert r.returncode == 1
    assert "Invalid kernel name `MyKernel`. Name must:" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_rejects_unknown_backend(kernel_builder, tmp_path):
    r = run(kernel_builder, "init", "--name", "org/k2", "--backends", "neuron", cwd=tmp_path)
    assert r.returncode == 2
    assert "Invalid backend `neuron`" in r.stderr


def hub_free_env(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "HF_TOKEN": "", "HF_HOME": str(home / "hf"), "HF_TOKEN_PATH": "", "XDG_CACHE_HOME": ""}


def test_init_without_name_and_login_fails(kernel_builder, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    r = run(kernel_builder, "init", "plain-dir", cwd=work, env=hub_free_env(tmp_path))
    assert r.returncode == 1
    assert NOT_LOGGED_IN in r.stderr
    assert list(work.iterdir()) == []


def test_init_with_token_but_no_hub_client_says_so(kernel_builder, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    env = hub_free_env(tmp_path)
    env["HF_TOKEN"] = "hf_dummy"
    r = run(kernel_builder, "init", cwd=work, env=env)
    assert r.returncode == 1
    assert "Hub client" in r.stderr
    assert "hf_dummy" not in r.stderr
    assert "--name <owner/repo>" in r.stderr


def test_init_existing_directory_inside_git_repo_is_not_reinitialized(kernel_builder, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    r = run(kernel_builder, "init", "--name", "org/inner", "--backends", "cpu", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "inner/.git").exists()
    staged = tracked_files(tmp_path)
    assert "inner/build.toml" in staged
