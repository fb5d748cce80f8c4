//! The native half of the `skilldeck` Python package (`skilldeck._skilldeck`).
//!
//! Every rule is the engine's: this crate only converts between Python
//! objects and the engine's types, releases the GIL around the work that
//! touches disks, stores or indexes (walks, body reads, searches, store
//! calls), and turns the engine's errors into the exception hierarchy rooted
//! at `skilldeck.SkillError`. The toolnexus-shaped API (`load_skills`,
//! `list_skills`, `SkillDef`, the awaitable tool) is the pure-Python layer in
//! `python/skilldeck/__init__.py`, over these classes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use skilldeck::authoring::{self, WriteSkill};
use skilldeck::store::{Precondition, SkillStore};
use skilldeck::{
    AgentProfile, Budget, Catalog, CatalogBuilder, Eager, Filter, LiveCatalog, LoadSkillTool, Origin, Reason,
    SampleLimit, SkillDef, SkillTool, render,
};

/// mimalloc for the engine's own allocations, as in the CLI: a walk of 10k
/// skills makes hundreds of thousands of small allocations on the walker's
/// threads, and glibc's arenas make `load_skills` about 10% slower. Python's
/// objects keep Python's allocator; every Rust allocation is freed by Rust.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    skilldeck,
    SkillError,
    PyException,
    "The base of every error skilldeck raises; `kind` names the case."
);
create_exception!(
    skilldeck,
    BuildError,
    SkillError,
    "A catalog configuration that cannot be built (a sample limit below -1)."
);
create_exception!(skilldeck, StoreError, SkillError, "A skill store refused or failed a call.");
create_exception!(skilldeck, BudgetError, SkillError, "A budget string that does not parse.");

/// An exception of type `T` carrying `message` and, as its `kind`
/// attribute, the engine error's stable kebab-case name.
fn error<T: pyo3::PyTypeInfo>(py: Python<'_>, kind: &str, message: String) -> PyErr {
    let err = PyErr::new::<T, _>(message);
    // Setting an attribute on a fresh exception instance does not fail.
    let _ = err.value(py).setattr("kind", kind);
    err
}

/// A build's one possible refusal, a sample limit below -1, checked where
/// the number comes in (`SampleLimit::from_config`): the build itself cannot fail.
fn sample_limit(n: i64) -> PyResult<SampleLimit> {
    SampleLimit::from_config(n).map_err(|e| Python::attach(|py| error::<BuildError>(py, "sample-limit", e.to_string())))
}

fn store_error(py: Python<'_>, e: &skilldeck::store::StoreError) -> PyErr {
    use skilldeck::store::StoreError as E;
    let kind = match e {
        E::AlreadyExists { .. } => "already-exists",
        E::Conflict { .. } => "conflict",
        E::NotFound { .. } => "not-found",
        E::NoSuchVersion { .. } => "no-such-version",
        E::InvalidName(_) => "invalid-name",
        E::InvalidProfile(_) => "invalid-profile",
        E::Unsupported { .. } => "unsupported",
        E::Backend { .. } => "backend",
        #[allow(unreachable_patterns)]
        _ => "store",
    };
    error::<StoreError>(py, kind, e.to_string())
}

/// A refused or failed `write_skill` as a `StoreError`: the request's
/// refusals by their own kinds, the store's by its.
fn authoring_error(py: Python<'_>, e: &skilldeck::authoring::AuthoringError) -> PyErr {
    use skilldeck::authoring::AuthoringError as E;
    let kind = match e {
        E::Store(e) => return store_error(py, e),
        E::InvalidName(_) => "invalid-name",
        E::MissingFrontmatter => "missing-frontmatter",
        E::MissingName => "missing-name",
        E::NameMismatch { .. } => "name-mismatch",
        E::Unloadable(_) => "unloadable",
        E::Risky(_) => "risky",
        _ => "authoring",
    };
    error::<StoreError>(py, kind, e.to_string())
}

fn parse_budget(py: Python<'_>, budget: &str) -> PyResult<Budget> {
    budget.parse::<Budget>().map_err(|e| {
        let kind = match e {
            skilldeck::ParseBudgetError::Syntax(_) => "syntax",
            skilldeck::ParseBudgetError::Encoding(_) => "encoding",
            skilldeck::ParseBudgetError::NoTokens => "no-tokens",
        };
        error::<BudgetError>(py, kind, e.to_string())
    })
}

/// A JSON value as the Python object `json.loads` would make of it.
fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (value.to_string(),))
}

/// A Python object (a dict of arguments) as JSON, through `json.dumps`.
fn from_python(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = obj.py().import("json")?.call_method1("dumps", (obj,))?.extract()?;
    serde_json::from_str(&text).map_err(|e| PyTypeError::new_err(format!("arguments are not JSON: {e}")))
}

// ---------------------------------------------------------------- skills

/// One skill of a catalog. Its body (`content`) is read when first asked for.
#[pyclass(module = "skilldeck", name = "Skill", frozen)]
struct PySkill {
    skill: skilldeck::Skill,
}

#[pymethods]
impl PySkill {
    /// The skill's name.
    #[getter]
    fn name(&self) -> &str {
        self.skill.name()
    }

    /// The description, or `None` when the frontmatter has none.
    #[getter]
    fn description(&self) -> Option<&str> {
        self.skill.description()
    }

    /// The `SKILL.md` path (a disk skill) or the logical base (a data skill).
    #[getter]
    fn location(&self) -> &str {
        self.skill.location()
    }

    /// `"fs"`, `"logical"` or `"store"`.
    #[getter]
    fn origin(&self) -> &'static str {
        self.skill.origin().kind()
    }

    /// The body after the frontmatter, read from disk on first use (the GIL
    /// is released meanwhile). Raises `OSError` when the file cannot be read.
    #[getter]
    fn content(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.skill.body().map(str::to_owned))
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", self.skill.location())))
    }

    /// A data skill's resource names, in supplied order; `None` otherwise.
    #[getter]
    fn resources(&self) -> Option<Vec<String>> {
        match self.skill.origin() {
            Origin::Logical { resources, .. } => Some(resources.clone()),
            _ => None,
        }
    }

    /// A data skill's logical base (`skill://<name>/` unless supplied); `None` otherwise.
    #[getter]
    fn base(&self) -> Option<String> {
        match self.skill.origin() {
            Origin::Logical { base, .. } => Some(base.clone()),
            _ => None,
        }
    }

    /// The directory the skill's files are served from: a disk skill's, or
    /// the disk skill's a store record took the place of; `None` otherwise.
    #[getter]
    fn dir(&self) -> Option<PathBuf> {
        self.skill.dir().map(PathBuf::from)
    }

    /// The trigger phrases of the frontmatter.
    #[getter]
    fn triggers(&self) -> Vec<String> {
        self.skill.triggers().to_vec()
    }

    /// The companion skills of the frontmatter.
    #[getter]
    fn companions(&self) -> Vec<String> {
        self.skill.companions().to_vec()
    }

    fn __repr__(&self) -> String {
        format!(
            "Skill(name={:?}, origin={:?}, location={:?})",
            self.skill.name(),
            self.skill.origin().kind(),
            self.skill.location()
        )
    }
}

fn skill(s: &skilldeck::Skill) -> PySkill {
    PySkill { skill: s.clone() }
}

/// A candidate that did not become a skill, and why.
#[pyclass(module = "skilldeck", name = "Skip", frozen, get_all)]
struct PySkip {
    /// The `SKILL.md` path, or a data skill's base.
    location: String,
    /// toolnexus's reason code: `missing-name`, `malformed-frontmatter`,
    /// `duplicate-name`, `unreadable` (or skilldeck's `too-large`).
    reason: &'static str,
    /// What exactly was wrong; `""` when the reason says it all (as toolnexus).
    detail: String,
}

#[pymethods]
impl PySkip {
    fn __repr__(&self) -> String {
        format!("Skip(location={:?}, reason={:?}, detail={:?})", self.location, self.reason, self.detail)
    }
}

/// Something a build did not stop for: a missing root, a duplicate name, a
/// failed provider or store, …
#[pyclass(module = "skilldeck", name = "CatalogWarning", frozen, get_all)]
struct PyWarning {
    /// A stable kebab-case name: `root-not-found`, `duplicate-name`, `filter-unmatched`,
    /// `provider-failed`, `recovered-frontmatter`, `walk-limit`, `store-failed`, `store-stale`.
    kind: &'static str,
    /// The text toolnexus prints after `[toolnexus] ` (or skilldeck's own).
    message: String,
}

#[pymethods]
impl PyWarning {
    fn __repr__(&self) -> String {
        format!("CatalogWarning(kind={:?}, message={:?})", self.kind, self.message)
    }

    fn __str__(&self) -> String {
        self.message.clone()
    }
}

/// What a tool call returns: the text for the model, whether it is an error,
/// and (on success) `{"name": …, "dir": …}`.
#[pyclass(module = "skilldeck", name = "ToolResult", frozen)]
struct PyToolResult {
    result: skilldeck::ToolResult,
}

#[pymethods]
impl PyToolResult {
    /// The text the model sees.
    #[getter]
    fn output(&self) -> &str {
        &self.result.output
    }

    /// Whether the call failed.
    #[getter]
    fn is_error(&self) -> bool {
        self.result.is_error
    }

    /// `{"name": …, "dir": …}` on success, `None` on an error.
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.result
            .metadata
            .as_ref()
            .map(|m| {
                let d = PyDict::new(py);
                d.set_item("name", &m.name)?;
                d.set_item("dir", &m.dir)?;
                Ok(d)
            })
            .transpose()
    }

    /// Non-text parts: always `None` (toolnexus's field, for shape).
    #[getter]
    fn parts(&self) -> Option<Vec<String>> {
        None
    }

    fn __repr__(&self) -> String {
        format!("ToolResult(output={:?}, is_error={})", self.result.output, self.result.is_error)
    }
}

fn tool_result(result: skilldeck::ToolResult) -> PyToolResult {
    PyToolResult { result }
}

fn declaration<'py>(py: Python<'py>, d: &skilldeck::ToolDeclaration) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("name", d.name)?;
    out.set_item("description", d.description)?;
    out.set_item("input_schema", to_python(py, &d.input_schema)?)?;
    Ok(out)
}

// ---------------------------------------------------------------- stores

/// A persistent skill store: a SQLite file or a PostgreSQL server.
#[pyclass(module = "skilldeck", name = "Store", frozen)]
struct PyStore {
    store: Arc<dyn SkillStore>,
    location: String,
}

#[pymethods]
impl PyStore {
    /// Opens the store at `location`: a `postgres://` URL or a file path
    /// (created when missing). Raises `StoreError`.
    #[new]
    fn open(py: Python<'_>, location: String) -> PyResult<PyStore> {
        let store = py.detach(|| skilldeck_store::open(&location)).map_err(|e| store_error(py, &e))?;
        Ok(PyStore { store: Arc::from(store), location })
    }

    /// The location it was opened with.
    #[getter]
    fn location(&self) -> &str {
        &self.location
    }

    /// Writes the whole `SKILL.md` text `content` under `name` (in `agent`'s
    /// scope when given) after the authoring checks (`write_skill`): raises
    /// `StoreError` for a name the name rule refuses (kind `invalid-name`),
    /// a text without frontmatter or `name` (`missing-frontmatter`,
    /// `missing-name`), a frontmatter `name` that is not `name`
    /// (`name-mismatch`), a text the audit finds something at `high` or
    /// above in (`risky`, unless `allow_risk`); with `create_only`,
    /// `already-exists` when a record is there. Returns the write's time.
    #[pyo3(signature = (name, content, *, agent=None, create_only=false, allow_risk=false))]
    fn write(
        &self,
        py: Python<'_>,
        name: &str,
        content: &str,
        agent: Option<&str>,
        create_only: bool,
        allow_risk: bool,
    ) -> PyResult<String> {
        let pre = if create_only { Precondition::Absent } else { Precondition::Any };
        let mut request = WriteSkill::new(name, content).precondition(pre).allow_risk(allow_risk);
        request.agent = agent.map(str::to_owned);
        py.detach(|| authoring::write_skill(self.store.as_ref(), &request))
            .map(|r| r.updated_at)
            .map_err(|e| authoring_error(py, &e))
    }

    /// The `SKILL.md` text under `name`, or `None`.
    #[pyo3(signature = (name, *, agent=None))]
    fn get(&self, py: Python<'_>, name: &str, agent: Option<&str>) -> PyResult<Option<String>> {
        py.detach(|| self.store.get(name, agent)).map(|r| r.map(|r| r.content)).map_err(|e| store_error(py, &e))
    }

    /// The keys of the scope, in byte order.
    #[pyo3(signature = (*, agent=None))]
    fn names(&self, py: Python<'_>, agent: Option<&str>) -> PyResult<Vec<String>> {
        py.detach(|| self.store.names(agent)).map_err(|e| store_error(py, &e))
    }

    /// Deletes the record under `name` with its history; `False` when there was none.
    #[pyo3(signature = (name, *, agent=None))]
    fn delete(&self, py: Python<'_>, name: &str, agent: Option<&str>) -> PyResult<bool> {
        py.detach(|| self.store.delete(name, agent)).map_err(|e| store_error(py, &e))
    }

    /// Every agent that has a record of its own, in byte order.
    fn agents(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        py.detach(|| self.store.agents()).map_err(|e| store_error(py, &e))
    }

    fn __repr__(&self) -> String {
        format!("Store({:?})", self.location)
    }
}

// ---------------------------------------------------------------- catalogs

/// A `SkillDef`-shaped Python object (toolnexus's own included) as the engine's.
fn skill_def(obj: &Bound<'_, PyAny>) -> PyResult<SkillDef> {
    let text = |attr: &str| -> PyResult<Option<String>> {
        match obj.getattr(attr) {
            Ok(v) if v.is_none() => Ok(None),
            Ok(v) => Ok(Some(v.extract()?)),
            Err(_) => Ok(None),
        }
    };
    let mut def = SkillDef::new(text("name")?.unwrap_or_default()).content(text("content")?.unwrap_or_default());
    if let Some(d) = text("description")? {
        def = def.description(d);
    }
    if let Ok(resources) = obj.getattr("resources")
        && !resources.is_none()
    {
        def = def.resources(resources.extract::<Vec<String>>()?);
    }
    if let Some(base) = text("base")? {
        def = def.base(base);
    }
    Ok(def)
}

/// The engine's provider over a Python callable: called (with the GIL taken
/// again) at every build; an exception or a result that is not a list of
/// definitions is a failed provider, which the build reports as a warning.
fn provider(callable: Py<PyAny>) -> impl Fn() -> Result<Vec<SkillDef>, skilldeck::ProviderError> + Send + Sync {
    move || {
        Python::attach(|py| {
            let out = callable.bind(py).call0().map_err(|e| e.value(py).to_string())?;
            if out.hasattr("__await__").unwrap_or(false) {
                return Err("the provider returned an awaitable; give load_skills a plain function".to_owned());
            }
            let list = out.cast::<PyList>().map_err(|_| {
                format!("expected a list, got: {}", out.repr().map(|r| r.to_string()).unwrap_or_default())
            })?;
            list.iter().map(|d| skill_def(&d).map_err(|e| e.value(py).to_string())).collect::<Result<Vec<_>, _>>()
        })
        .map_err(skilldeck::ProviderError::from)
    }
}

/// A catalog's roots as Python gives them: one path (`str` or
/// `os.PathLike`) or a sequence of them.
#[derive(Default)]
struct Roots(Vec<PathBuf>);

impl<'a, 'py> FromPyObject<'a, 'py> for Roots {
    type Error = PyErr;

    fn extract(ob: Borrowed<'a, 'py, PyAny>) -> PyResult<Roots> {
        // A `str` is a sequence too (of characters): a path first.
        if let Ok(path) = ob.extract::<PathBuf>() {
            return Ok(Roots(vec![path]));
        }
        ob.extract::<Vec<PathBuf>>().map(Roots).map_err(|_| {
            let got = ob.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            PyTypeError::new_err(format!("roots must be a path (str or os.PathLike) or a list of paths, got {got}"))
        })
    }
}

/// `skilldeck._skill_list.SkillList`: the list `Catalog.skills` returns,
/// callable for the code that called it as a method.
fn skill_list(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static SKILL_LIST: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    SKILL_LIST
        .get_or_try_init(py, || Ok::<_, PyErr>(py.import("skilldeck._skill_list")?.getattr("SkillList")?.unbind()))
        .map(|class| class.bind(py))
}

/// The builder every catalog constructor shares.
#[allow(clippy::too_many_arguments)]
fn builder(
    roots: Option<Roots>,
    skills: Option<Vec<Bound<'_, PyAny>>>,
    filter: Option<HashMap<String, bool>>,
    sample_limit: i64,
    provider_fn: Option<Py<PyAny>>,
    store: Option<&PyStore>,
) -> PyResult<CatalogBuilder> {
    let roots = roots.unwrap_or_default().0;
    let mut b = Catalog::builder().roots(roots).sample_limit(self::sample_limit(sample_limit)?);
    for def in skills.unwrap_or_default() {
        b = b.skill(skill_def(&def)?);
    }
    if let Some(f) = filter {
        b = b.filter(Filter::new(f));
    }
    if let Some(p) = provider_fn {
        b = b.provider(provider(p));
    }
    if let Some(s) = store {
        b = b.store(Arc::clone(&s.store));
    }
    Ok(b)
}

/// An immutable snapshot of every skill the sources hold.
#[pyclass(module = "skilldeck", name = "Catalog", frozen)]
struct PyCatalog {
    catalog: Catalog,
}

#[pymethods]
impl PyCatalog {
    /// Builds a catalog (the GIL is released during the walk and reads):
    /// `roots` walked in order, then the data `skills` (`SkillDef`s), then
    /// what `provider()` returns, then the `store`'s records; `filter` is
    /// toolnexus's `{name: bool}` allow/drop list; `sample_limit` is 0 (ten
    /// files), n > 0, or -1 (no file list). Raises `BuildError`.
    #[new]
    #[pyo3(signature = (roots=None, *, skills=None, filter=None, sample_limit=0, provider=None, store=None))]
    fn new(
        py: Python<'_>,
        roots: Option<Roots>,
        skills: Option<Vec<Bound<'_, PyAny>>>,
        filter: Option<HashMap<String, bool>>,
        sample_limit: i64,
        provider: Option<Py<PyAny>>,
        store: Option<PyRef<'_, PyStore>>,
    ) -> PyResult<PyCatalog> {
        let b = builder(roots, skills, filter, sample_limit, provider, store.as_deref())?;
        let catalog = py.detach(|| b.build());
        Ok(PyCatalog { catalog })
    }

    /// The exposed skills (after the filter), in collection order: a list
    /// (calling it, as the method it was, still works and warns).
    #[getter]
    fn skills<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list: Vec<PySkill> = self.catalog.skills().map(skill).collect();
        skill_list(py)?.call1((list,))
    }

    /// The exposed skills by name, in collection order.
    fn by_name<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for s in self.catalog.skills() {
            d.set_item(s.name(), skill(s))?;
        }
        Ok(d)
    }

    /// Every skill that survived deduplication, filter or not.
    fn inventory(&self) -> Vec<PySkill> {
        self.catalog.inventory().iter().map(skill).collect()
    }

    /// An exposed skill by exact name.
    fn get(&self, name: &str) -> Option<PySkill> {
        self.catalog.get(name).map(skill)
    }

    /// The candidates that did not become skills.
    #[getter]
    fn skips(&self) -> Vec<PySkip> {
        self.catalog
            .skips()
            .iter()
            .map(|s| PySkip {
                location: s.location.clone(),
                reason: s.reason.as_str(),
                detail: s.detail.clone().unwrap_or_default(),
            })
            .collect()
    }

    /// What the build did not stop for.
    #[getter]
    fn warnings(&self) -> Vec<PyWarning> {
        self.catalog.warnings().iter().map(|w| PyWarning { kind: w.kind(), message: w.to_string() }).collect()
    }

    fn __len__(&self) -> usize {
        self.catalog.skills().len()
    }

    /// The level-1 catalog: `"toolnexus"` (markdown, toolnexus's `prompt()`) or
    /// `"agentskills"` (skills-ref's XML).
    #[pyo3(signature = (format="toolnexus"))]
    fn render(&self, format: &str) -> PyResult<String> {
        match format {
            "toolnexus" => Ok(render::toolnexus(&self.catalog)),
            "agentskills" => Ok(render::agentskills(&self.catalog)),
            other => {
                Err(PyTypeError::new_err(format!("unknown format {other:?}: use \"toolnexus\" or \"agentskills\"")))
            }
        }
    }

    /// The level-1 catalog cut to `budget` (`"8000c"`, `"2000t"`,
    /// `"2000t:cl100k"`), with the report of what was cut. With
    /// `search_tool`, a cut text is closed by one line naming that tool.
    #[pyo3(signature = (budget, format="toolnexus", *, search_tool=None))]
    fn fit(&self, py: Python<'_>, budget: &str, format: &str, search_tool: Option<&str>) -> PyResult<PyFitted> {
        let budget = parse_budget(py, budget)?;
        let fit = |b: Budget| match format {
            "agentskills" => b.agentskills(&self.catalog),
            _ => b.toolnexus(&self.catalog),
        };
        if !matches!(format, "toolnexus" | "agentskills") {
            return Err(PyTypeError::new_err(format!(
                "unknown format {format:?}: use \"toolnexus\" or \"agentskills\""
            )));
        }
        fitted(
            py,
            match search_tool {
                Some(tool) => budget.closed(tool, fit),
                None => fit(budget),
            },
        )
    }

    /// The `skill` tool's output for `name` (toolnexus's level 2), with the
    /// catalog's sample limit; the GIL is released while the body and the
    /// sibling files are read.
    fn load(&self, py: Python<'_>, name: &str) -> PyToolResult {
        let tool = SkillTool::new(&self.catalog);
        let limit = self.catalog.sample_limit();
        tool_result(py.detach(|| tool.load(name, limit)))
    }

    /// The `skill` tool on a model's arguments (`{"name": …}`); bad arguments
    /// are an error result.
    fn call(&self, py: Python<'_>, args: &Bound<'_, PyAny>) -> PyResult<PyToolResult> {
        let args = from_python(args)?;
        let tool = SkillTool::new(&self.catalog);
        Ok(tool_result(py.detach(|| tool.call(&args))))
    }

    /// Ranked skills for `query` (BM25F over name, description, triggers and
    /// body; the index is built on first use, with the GIL released).
    #[pyo3(signature = (query, limit=10))]
    fn search(&self, py: Python<'_>, query: &str, limit: usize) -> PyResult<PySearchResults> {
        let found = py.detach(|| self.catalog.search(query, limit));
        search_results(py, &found)
    }

    /// The view of this snapshot for one agent.
    fn view(&self, profile: &PyAgentProfile) -> PyAgentView {
        PyAgentView { catalog: self.catalog.clone(), profile: profile.profile.clone() }
    }

    fn __repr__(&self) -> String {
        format!(
            "Catalog({} skills, {} skips, {} warnings)",
            self.catalog.skills().len(),
            self.catalog.skips().len(),
            self.catalog.warnings().len()
        )
    }
}

/// The `skill` tool's declaration: `{"name", "description", "input_schema"}`.
#[pyfunction]
fn skill_tool_declaration(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    declaration(py, &SkillTool::declaration())
}

// ---------------------------------------------------------------- budgets

/// A level-1 text cut to a budget, and what was cut.
#[pyclass(module = "skilldeck", name = "Fitted", frozen, get_all)]
struct PyFitted {
    /// The text, within the budget.
    text: String,
    /// What was shown whole, shortened or left out.
    report: Py<PyBudgetReport>,
}

/// What a budget did to a level-1 text.
#[pyclass(module = "skilldeck", name = "BudgetReport", frozen, get_all)]
struct PyBudgetReport {
    /// The budget's limit.
    limit: usize,
    /// `"chars"` or `"tokens"`.
    unit: &'static str,
    /// The text's size in that unit.
    used: usize,
    /// The most characters any description shows, when some were shortened.
    share: Option<usize>,
    /// Skills shown whole.
    full: Vec<String>,
    /// `(name, characters left out)` of each shortened description.
    shortened: Vec<(String, usize)>,
    /// Skills left out, from the end of the order.
    omitted: Vec<String>,
    /// Exposed skills the format never lists (no description), which a
    /// search still finds.
    unlisted: usize,
}

fn fitted(py: Python<'_>, f: skilldeck::Fitted<'_>) -> PyResult<PyFitted> {
    let r = f.report;
    #[allow(unreachable_patterns)]
    let unit = match r.budget.unit {
        skilldeck::Unit::Chars => "chars",
        _ => "tokens",
    };
    let report = PyBudgetReport {
        limit: r.budget.limit,
        unit,
        used: r.used,
        share: r.share,
        full: r.full.iter().map(|s| (*s).to_owned()).collect(),
        shortened: r.shortened.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect(),
        omitted: r.omitted.iter().map(|s| (*s).to_owned()).collect(),
        unlisted: r.unlisted,
    };
    Ok(PyFitted { text: f.text, report: Py::new(py, report)? })
}

// ---------------------------------------------------------------- search

/// A search's ranked hits, or its abstention.
#[pyclass(module = "skilldeck", name = "SearchResults", frozen, get_all)]
struct PySearchResults {
    /// `(skill, score)`, best first.
    hits: Vec<(Py<PySkill>, f64)>,
    /// Whether `hits` is empty because nothing matched well enough.
    abstained: bool,
}

fn search_results(py: Python<'_>, found: &skilldeck::SearchResults<'_>) -> PyResult<PySearchResults> {
    let hits = found.hits.iter().map(|h| Ok((Py::new(py, skill(h.skill))?, h.score))).collect::<PyResult<_>>()?;
    Ok(PySearchResults { hits, abstained: found.abstained })
}

// ---------------------------------------------------------------- agents

/// Which skills an agent may use (`allow`, `None` for all) and which it
/// always gets in full (`eager`: `None`, `"all"` or a list of names).
#[pyclass(module = "skilldeck", name = "AgentProfile", frozen)]
struct PyAgentProfile {
    profile: AgentProfile,
}

#[pymethods]
impl PyAgentProfile {
    #[new]
    #[pyo3(signature = (id, *, allow=None, eager=None))]
    fn new(id: String, allow: Option<Vec<String>>, eager: Option<&Bound<'_, PyAny>>) -> PyResult<PyAgentProfile> {
        let mut profile = AgentProfile::new(id);
        if let Some(names) = allow {
            profile = profile.allow(names);
        }
        let eager = match eager {
            None => Eager::None,
            Some(e) if e.is_none() => Eager::None,
            Some(e) => match e.extract::<String>() {
                Ok(s) if s == "all" => Eager::All,
                Ok(s) => Eager::names([s]),
                Err(_) => Eager::names(e.extract::<Vec<String>>()?),
            },
        };
        Ok(PyAgentProfile { profile: profile.eager(eager) })
    }

    /// The agent's id.
    #[getter]
    fn id(&self) -> &str {
        &self.profile.id
    }

    /// Whether the agent may use `name`.
    fn allows(&self, name: &str) -> bool {
        self.profile.allows(name)
    }

    /// Whether `name` is eager for the agent.
    fn is_eager(&self, name: &str) -> bool {
        self.profile.is_eager(name)
    }
}

/// A skill whose body is injected this turn, and why.
#[pyclass(module = "skilldeck", name = "Activation", frozen, get_all)]
struct PyActivation {
    /// The skill.
    skill: Py<PySkill>,
    /// `"eager"`, `"trigger:<phrase>"` or `"companion:<skill>"`.
    reason: String,
    /// `"eager"`, `"trigger"` or `"companion"`.
    kind: &'static str,
    /// The trigger phrase or the skill it travels with; `None` for eager.
    detail: Option<String>,
}

/// One agent's view of one catalog snapshot: the only place that decides
/// eager and lazy.
#[pyclass(module = "skilldeck", name = "AgentView", frozen)]
struct PyAgentView {
    catalog: Catalog,
    profile: AgentProfile,
}

fn skills(list: Vec<&skilldeck::Skill>) -> Vec<PySkill> {
    list.into_iter().map(skill).collect()
}

#[pymethods]
impl PyAgentView {
    /// Every skill the agent sees (shared ones, its own records in their place, then its private ones).
    fn all(&self) -> Vec<PySkill> {
        self.catalog.view(&self.profile).all().iter().map(|s| skill(s)).collect()
    }

    /// A skill of the view by name.
    fn find(&self, name: &str) -> Option<PySkill> {
        self.catalog.view(&self.profile).find(name).map(skill)
    }

    /// The skills the agent may use.
    fn effective(&self) -> Vec<PySkill> {
        skills(self.catalog.view(&self.profile).effective())
    }

    /// The skills it always gets in full.
    fn eager(&self) -> Vec<PySkill> {
        skills(self.catalog.view(&self.profile).eager())
    }

    /// The skills it loads on demand (listed at level 1, served by `load_skill`).
    fn lazy(&self) -> Vec<PySkill> {
        skills(self.catalog.view(&self.profile).lazy())
    }

    /// The skills whose bodies go into this turn for `message`, with why.
    fn activate(&self, py: Python<'_>, message: &str) -> PyResult<Vec<PyActivation>> {
        let view = self.catalog.view(&self.profile);
        view.activate(message)
            .into_iter()
            .map(|a| {
                let (kind, detail) = match &a.reason {
                    Reason::Eager => ("eager", None),
                    Reason::Trigger(p) => ("trigger", Some(p.clone())),
                    Reason::Companion(s) => ("companion", Some(s.clone())),
                };
                Ok(PyActivation { skill: Py::new(py, skill(a.skill))?, reason: a.reason.to_string(), kind, detail })
            })
            .collect()
    }

    /// The `<active_skill>` blocks of this turn's activations for `message`
    /// (bodies read with the GIL released).
    fn active_skills(&self, py: Python<'_>, message: &str) -> String {
        py.detach(|| render::active_skills(&self.catalog.view(&self.profile).activate(message)))
    }

    /// Insika's `<available_skills>` list of the lazy skills; cut to `budget`
    /// (`"8000c"`) with its report when one is given.
    #[pyo3(signature = (budget=None))]
    fn render(&self, py: Python<'_>, budget: Option<&str>) -> PyResult<String> {
        let view = self.catalog.view(&self.profile);
        match budget {
            None => Ok(render::insika(&view.lazy())),
            Some(b) => Ok(parse_budget(py, b)?.insika(&view.lazy()).text),
        }
    }

    /// Insika's list of the lazy skills cut to `budget`, with the report.
    fn fit(&self, py: Python<'_>, budget: &str) -> PyResult<PyFitted> {
        let view = self.catalog.view(&self.profile);
        fitted(py, parse_budget(py, budget)?.insika(&view.lazy()))
    }

    /// Ranked skills of this view for `query`.
    #[pyo3(signature = (query, limit=10))]
    fn search(&self, py: Python<'_>, query: &str, limit: usize) -> PyResult<PySearchResults> {
        let found = py.detach(|| self.catalog.view(&self.profile).search(query, limit));
        search_results(py, &found)
    }

    /// The `load_skill` tool serving this view's lazy skills.
    fn load_skill_tool(&self) -> PyLoadSkillTool {
        PyLoadSkillTool { tool: LoadSkillTool::new(&self.catalog.view(&self.profile)) }
    }
}

/// Insika's `load_skill` tool over one agent's view.
#[pyclass(module = "skilldeck", name = "LoadSkillTool", frozen)]
struct PyLoadSkillTool {
    tool: LoadSkillTool,
}

#[pymethods]
impl PyLoadSkillTool {
    /// The names it serves, in catalog order.
    fn allowed(&self) -> Vec<String> {
        self.tool.allowed().into_iter().map(str::to_owned).collect()
    }

    /// Serves `name` (its body, or blocks of it and its companions).
    fn load(&self, py: Python<'_>, name: &str) -> PyToolResult {
        tool_result(py.detach(|| self.tool.load(name)))
    }

    /// Runs the tool on a model's arguments (`{"name": …}`).
    fn call(&self, py: Python<'_>, args: &Bound<'_, PyAny>) -> PyResult<PyToolResult> {
        let args = from_python(args)?;
        Ok(tool_result(py.detach(|| self.tool.call(&args))))
    }

    /// `{"name", "description", "input_schema"}`.
    #[staticmethod]
    fn declaration(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        declaration(py, &LoadSkillTool::declaration())
    }
}

// ---------------------------------------------------------------- live

/// A catalog that follows its sources: `snapshot()` is the current
/// `Catalog`; `reload()` and `reload_changed(paths)` build a new one.
#[pyclass(module = "skilldeck", name = "LiveCatalog", frozen)]
struct PyLiveCatalog {
    live: LiveCatalog,
}

#[pymethods]
impl PyLiveCatalog {
    /// As `Catalog(...)`; the provider is called again at every reload.
    #[new]
    #[pyo3(signature = (roots=None, *, skills=None, filter=None, sample_limit=0, provider=None, store=None))]
    fn new(
        py: Python<'_>,
        roots: Option<Roots>,
        skills: Option<Vec<Bound<'_, PyAny>>>,
        filter: Option<HashMap<String, bool>>,
        sample_limit: i64,
        provider: Option<Py<PyAny>>,
        store: Option<PyRef<'_, PyStore>>,
    ) -> PyResult<PyLiveCatalog> {
        let b = builder(roots, skills, filter, sample_limit, provider, store.as_deref())?;
        let live = py.detach(|| LiveCatalog::new(b));
        Ok(PyLiveCatalog { live })
    }

    /// The current snapshot.
    fn snapshot(&self) -> PyCatalog {
        PyCatalog { catalog: self.live.snapshot() }
    }

    /// Rebuilds from every source; returns the new snapshot.
    fn reload(&self, py: Python<'_>) -> PyResult<PyCatalog> {
        let catalog = py.detach(|| self.live.reload());
        Ok(PyCatalog { catalog })
    }

    /// Walks again only the directories `paths` touch (files or directories
    /// that changed); gives what `reload()` would.
    fn reload_changed(&self, py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<PyCatalog> {
        let catalog = py.detach(|| self.live.reload_changed(&paths));
        Ok(PyCatalog { catalog })
    }
}

// ---------------------------------------------------------------- validate

/// One finding about one file.
#[pyclass(module = "skilldeck", name = "Diagnostic", frozen, get_all)]
struct PyDiagnostic {
    /// `"error"` or `"warning"`.
    severity: &'static str,
    /// The check's name.
    check: &'static str,
    /// What is wrong (skills-ref's exact text for its checks).
    message: String,
    /// The `SKILL.md` (or the path given).
    path: PathBuf,
    /// 1-based line, when known.
    line: Option<u64>,
    /// 1-based column, when known.
    column: Option<u64>,
}

#[pymethods]
impl PyDiagnostic {
    fn __str__(&self) -> String {
        let at = self.line.zip(self.column).map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default();
        format!("{}{at}: {}: {}", self.path.display(), self.severity, self.message)
    }
}

/// The findings about one skill directory.
#[pyclass(module = "skilldeck", name = "ValidationReport", frozen, get_all)]
struct PyValidationReport {
    /// The skill directory.
    dir: PathBuf,
    /// The `SKILL.md` checked, when one was found.
    skill_md: Option<PathBuf>,
    /// The findings, skills-ref's checks first.
    diagnostics: Vec<Py<PyDiagnostic>>,
    /// No error among them.
    is_valid: bool,
}

/// Validates the skill at `path`, or every skill under it (skills-ref's
/// checks, then skilldeck's); with `strict`, every finding is an error.
#[pyfunction]
#[pyo3(signature = (path, *, strict=false))]
fn validate(py: Python<'_>, path: PathBuf, strict: bool) -> PyResult<Vec<PyValidationReport>> {
    let reports = py.detach(|| skilldeck::validate::Validator::new().strict(strict).validate(&path));
    reports
        .into_iter()
        .map(|r| {
            let is_valid = r.is_valid();
            let diagnostics = r
                .diagnostics
                .into_iter()
                .map(|d| {
                    Py::new(
                        py,
                        PyDiagnostic {
                            severity: d.severity.as_str(),
                            check: d.check.as_str(),
                            message: d.message,
                            path: d.path,
                            line: d.position.map(|p| p.0),
                            column: d.position.map(|p| p.1),
                        },
                    )
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyValidationReport { dir: r.dir, skill_md: r.skill_md, diagnostics, is_valid })
        })
        .collect()
}

/// The native module; `skilldeck/__init__.py` re-exports it.
#[pymodule]
fn _skilldeck(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SkillError", py.get_type::<SkillError>())?;
    m.add("BuildError", py.get_type::<BuildError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("BudgetError", py.get_type::<BudgetError>())?;
    m.add_class::<PySkill>()?;
    m.add_class::<PySkip>()?;
    m.add_class::<PyWarning>()?;
    m.add_class::<PyToolResult>()?;
    m.add_class::<PyStore>()?;
    m.add_class::<PyCatalog>()?;
    m.add_class::<PyFitted>()?;
    m.add_class::<PyBudgetReport>()?;
    m.add_class::<PySearchResults>()?;
    m.add_class::<PyAgentProfile>()?;
    m.add_class::<PyActivation>()?;
    m.add_class::<PyAgentView>()?;
    m.add_class::<PyLoadSkillTool>()?;
    m.add_class::<PyLiveCatalog>()?;
    m.add_class::<PyDiagnostic>()?;
    m.add_class::<PyValidationReport>()?;
    m.add_function(wrap_pyfunction!(skill_tool_declaration, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add("TOOLNEXUS_PREAMBLE", render::TOOLNEXUS_PREAMBLE)?;
    m.add("TOOLNEXUS_EMPTY", render::TOOLNEXUS_EMPTY)?;
    Ok(())
}
