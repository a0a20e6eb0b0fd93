//! The pages' files, embedded in the binary: the one HTML shell every page path answers with,
//! and the stylesheet and ES modules under `/assets/`.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::state::AppState;

/// The page paths: each answers with the shell, whose modules route by `location.pathname`.
pub const PAGES: [&str; 6] = ["/", "/runs/{id}", "/workers", "/games/{id}", "/play", "/create"];
// `/login` is routed by `auth` (it also takes the signed-in URL) and answers with the shell.

const INDEX: &str = include_str!("../assets/index.html");

const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

/// Every embedded asset: its path under `/assets/`, its content type and its bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    ("app.css", CSS, include_bytes!("../assets/app.css")),
    ("js/app.js", JS, include_bytes!("../assets/js/app.js")),
    ("js/api.js", JS, include_bytes!("../assets/js/api.js")),
    ("js/dom.js", JS, include_bytes!("../assets/js/dom.js")),
    ("js/board.js", JS, include_bytes!("../assets/js/board.js")),
    ("js/charts.js", JS, include_bytes!("../assets/js/charts.js")),
    ("js/pages/runs.js", JS, include_bytes!("../assets/js/pages/runs.js")),
    ("js/pages/run.js", JS, include_bytes!("../assets/js/pages/run.js")),
    ("js/pages/tournament.js", JS, include_bytes!("../assets/js/pages/tournament.js")),
    ("js/pages/workers.js", JS, include_bytes!("../assets/js/pages/workers.js")),
    ("js/pages/game.js", JS, include_bytes!("../assets/js/pages/game.js")),
    ("js/pages/play.js", JS, include_bytes!("../assets/js/pages/play.js")),
    ("js/pages/create.js", JS, include_bytes!("../assets/js/pages/create.js")),
    ("js/pages/login.js", JS, include_bytes!("../assets/js/pages/login.js")),
];

pub fn routes() -> axum::Router<AppState> {
    let mut router = axum::Router::new();
    for page in PAGES {
        router = router.route(page, get(shell));
    }
    router.route("/assets/{*path}", get(asset))
}

pub async fn shell() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], INDEX).into_response()
}

async fn asset(Path(path): Path<String>) -> Response {
    match ASSETS.iter().find(|(p, _, _)| *p == path) {
        Some((_, kind, bytes)) => {
            ([(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "no-cache")], *bytes).into_response()
        }
        None => (StatusCode::NOT_FOUND, format!("no asset {path}")).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(path: &str) -> &'static str {
        let (_, _, bytes) = ASSETS.iter().find(|(p, _, _)| *p == path).unwrap_or_else(|| panic!("no asset {path}"));
        std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{path} is not UTF-8: {e}"))
    }

    /// Resolves `./x.js` / `../x.js` against the directory of `from` (both under /assets/).
    fn resolve(from: &str, target: &str) -> String {
        let mut parts: Vec<&str> = from.split('/').collect();
        parts.pop();
        for seg in target.split('/') {
            match seg {
                "." => {}
                ".." => {
                    parts.pop();
                }
                s => parts.push(s),
            }
        }
        parts.join("/")
    }

    /// The module specifiers of `import ... from '...'` and `import('...')` in a module.
    fn imports(source: &str) -> Vec<String> {
        let mut found = Vec::new();
        for marker in ["from '", "import('"] {
            let mut rest = source;
            while let Some(i) = rest.find(marker) {
                rest = &rest[i + marker.len()..];
                if let Some(end) = rest.find('\'') {
                    found.push(rest[..end].to_owned());
                }
            }
        }
        found
    }

    #[test]
    fn content_types_follow_the_extension() {
        for (path, kind, bytes) in ASSETS {
            assert!(!bytes.is_empty(), "{path} is empty");
            let expected = match path.rsplit('.').next() {
                Some("js") => JS,
                Some("css") => CSS,
                other => panic!("{path}: no content type for extension {other:?}"),
            };
            assert_eq!(*kind, expected, "{path}");
        }
    }

    #[test]
    fn every_module_the_pages_load_is_embedded() {
        let referenced: Vec<&str> =
            INDEX.split("\"/assets/").skip(1).filter_map(|rest| rest.split('"').next()).collect();
        assert!(referenced.contains(&"js/app.js") && referenced.contains(&"app.css"), "{referenced:?}");
        for path in &referenced {
            assert!(ASSETS.iter().any(|(p, _, _)| p == path), "index.html loads /assets/{path}, which is not embedded");
        }
        let mut checked = 0;
        for (path, _, _) in ASSETS.iter().filter(|(p, _, _)| p.ends_with(".js")) {
            for spec in imports(text(path)) {
                assert!(
                    spec.starts_with("./") || spec.starts_with("../"),
                    "{path} imports `{spec}`: only relative modules"
                );
                let target = resolve(path, &spec);
                assert!(ASSETS.iter().any(|(p, _, _)| *p == target), "{path} imports {spec} = {target}, not embedded");
                checked += 1;
            }
        }
        assert!(checked > 10, "only {checked} imports found: the scan is broken");
    }

    #[test]
    fn nothing_is_loaded_from_elsewhere() {
        for (path, _, _) in ASSETS {
            // The SVG namespace is the one absolute URL allowed (it is never fetched).
            let source = text(path).replace("http://www.w3.org/2000/svg", "");
            for needle in ["http://", "https://", "//cdn", "@import"] {
                assert!(!source.contains(needle), "{path} mentions {needle}");
            }
        }
    }

    #[test]
    fn resolve_walks_up_and_down() {
        assert_eq!(resolve("js/pages/run.js", "../api.js"), "js/api.js");
        assert_eq!(resolve("js/app.js", "./pages/runs.js"), "js/pages/runs.js");
        assert_eq!(imports("import { a } from './a.js';\nconst m = import('./b.js');"), vec!["./a.js", "./b.js"]);
    }
}
