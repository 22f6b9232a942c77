"""Trains the main-content block model (decision 0041) on the blocks bench/src/main-content-training.ts wrote.

Five folds grouped by site (no site in both train and test), LightGBM and scikit-learn's
HistGradientBoosting side by side, each fold's model and the final one (all pages) written in the
flat form apps/scrape-engine/src/formats/block-model.ts evaluates. Seeded and single-threaded
where it matters, so the same data gives the same model.

usage: train.py DIR   (DIR holds blocks.csv; fold-N.json, folds.json, model.json, training.json are written there)
"""
import csv
import json
import os
import sys
import time

import lightgbm as lgb
import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

SEED = 20261206
FOLDS = 5
LABEL_AT = 0.5
# What every tree model here shares: seeded, deterministic, two threads.
COMMON_PARAMS = dict(
    objective="binary",
    feature_fraction=0.8,
    bagging_fraction=0.8,
    bagging_freq=1,
    lambda_l2=1.0,
    seed=SEED,
    deterministic=True,
    force_col_wise=True,
    num_threads=2,
    verbose=-1,
)
LGB_PARAMS = dict(COMMON_PARAMS, learning_rate=0.1, num_leaves=31, min_data_in_leaf=40)
ROUNDS = 150


def read(directory):
    with open(f"{directory}/blocks.csv", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        pages, rows = [], []
        for row in reader:
            pages.append(row[0])
            rows.append(row[3:])
    with open(f"{directory}/pages.csv", newline="") as f:
        reader = csv.reader(f)
        page_header = next(reader)
        page_ids, sites, types, empty, page_rows = [], [], [], [], []
        for row in reader:
            page_ids.append(row[0])
            sites.append(row[1])
            types.append(row[2])
            empty.append(int(row[3]))
            page_rows.append(row[4:])
    return dict(
        block_features=header[6:],
        block_pages=np.asarray(pages),
        blocks=np.asarray(rows, dtype=np.float64),
        page_features=page_header[4:],
        empty=np.asarray(empty, dtype=np.int32),
        page_ids=np.asarray(page_ids),
        sites=np.asarray(sites),
        types=np.asarray(types),
        pages=np.asarray(page_rows, dtype=np.float64),
    )


def weights_of(tokens, page_tokens, page_weight):
    # Every page counts the same in WCXB's mean F1: a block weighs its share of its page's words,
    # times its page's weight (kinds of page with fewer pages weigh more, by the square root).
    return tokens / np.maximum(page_tokens, 1.0) * page_weight


def lgb_flat(booster, features, threshold):
    trees = []
    for info in booster.dump_model()["tree_info"]:
        feature, split, left, right, leaf = [], [], [], [], []

        def visit(node):
            if "leaf_value" in node:
                leaf.append(node["leaf_value"])
                return ~(len(leaf) - 1)
            if node["decision_type"] != "<=" or node.get("missing_type") == "Zero":
                raise SystemExit(f"unsupported split {node['decision_type']} / {node.get('missing_type')}")
            at = len(feature)
            feature.append(node["split_feature"])
            split.append(node["threshold"])
            left.append(0)
            right.append(0)
            left[at] = visit(node["left_child"])
            right[at] = visit(node["right_child"])
            return at

        visit(info["tree_structure"])
        trees.append(dict(feature=feature, split=split, left=left, right=right, leaf=leaf))
    return dict(format="lightgbm-flat-1", features=features, threshold=threshold, trees=trees)


def hgb_flat(model, features, threshold):
    trees = [dict(feature=[], split=[], left=[], right=[], leaf=[float(model._baseline_prediction.ravel()[0])])]
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        feature, split, left, right, leaf = [], [], [], [], []
        internal, leaves = {}, {}
        for i, node in enumerate(nodes):
            if node["is_leaf"]:
                leaves[i] = len(leaf)
                leaf.append(float(node["value"]))
            else:
                internal[i] = len(feature)
                feature.append(int(node["feature_idx"]))
                split.append(float(node["num_threshold"]))
                left.append(0)
                right.append(0)
        ref = lambda i: internal[i] if i in internal else ~leaves[i]
        for i, node in enumerate(nodes):
            if not node["is_leaf"]:
                left[internal[i]] = ref(int(node["left"]))
                right[internal[i]] = ref(int(node["right"]))
        if not feature:
            trees.append(dict(feature=[], split=[], left=[], right=[], leaf=leaf))
        else:
            trees.append(dict(feature=feature, split=split, left=left, right=right, leaf=leaf))
    return dict(format="lightgbm-flat-1", features=features, threshold=threshold, trees=trees)


def block_figures(y, p, w, threshold):
    kept = p >= threshold
    tp = float(np.sum(w * (kept & (y == 1))))
    fp = float(np.sum(w * (kept & (y == 0))))
    fn = float(np.sum(w * (~kept & (y == 1))))
    precision = tp / max(tp + fp, 1e-12)
    recall = tp / max(tp + fn, 1e-12)
    return dict(
        auc=round(float(roc_auc_score(y, p, sample_weight=w)), 4),
        precision=round(precision, 4),
        recall=round(recall, 4),
        f1=round(2 * precision * recall / max(precision + recall, 1e-12), 4),
    )


PAGE_KINDS = ["article", "forum", "product", "collection", "listing", "documentation", "service"]
PAGE_PARAMS = dict(COMMON_PARAMS, learning_rate=0.05, num_leaves=15, min_data_in_leaf=10)
PAGE_ROUNDS = 150
# A page is answered empty only when the no-main-content classifier is this sure: an empty answer
# on a page with content costs a client far more than boilerplate on a page without.
NO_CONTENT_THRESHOLD = 0.9
# The block threshold by the page's likeliest kind, chosen on the dev split's out-of-fold pages
# (docs/main-content-model.md): articles keep only what is likely theirs (precision), the other
# kinds, whose content is lists and grids, keep what is as likely theirs as not.
THRESHOLDS = [0.5, 0.35, 0.35, 0.35, 0.35, 0.35, 0.35]


def page_type_models(x, types, rows):
    return [lgb.train(PAGE_PARAMS, lgb.Dataset(x[rows], (types[rows] == kind).astype(np.int32)), PAGE_ROUNDS) for kind in PAGE_KINDS]


def no_content_model(x, empty, rows):
    # Few pages have no main content (a bare grid, a sign-in wall): they weigh as much as the rest together.
    positives = max(1, int(np.sum(empty[rows])))
    weight = np.where(empty[rows] == 1, (len(empty[rows]) - positives) / positives, 1.0)
    return lgb.train(PAGE_PARAMS, lgb.Dataset(x[rows], empty[rows], weight=weight), PAGE_ROUNDS)


def model_file(page_models, blocks, no_content):
    """What apps/scrape-engine/src/formats/block-model.ts reads (MainContentModelFile)."""
    return dict(format="main-content-1", pageTypes=page_models, blocks=blocks, thresholds=THRESHOLDS, noContent=no_content)


def page_type_probabilities(models, x):
    return np.column_stack([m.predict(x) for m in models])


def main(directory):
    d = read(directory)
    compare = os.environ.get("TRAIN_COMPARE", "1") != "0"
    x_pages, types, sites, page_ids = d["pages"], d["types"], d["sites"], d["page_ids"]
    page_index = {page: i for i, page in enumerate(page_ids)}
    block_page = np.asarray([page_index[p] for p in d["block_pages"]])
    tokens, page_tokens, label, x = d["blocks"][:, 0], d["blocks"][:, 1], d["blocks"][:, 2], d["blocks"][:, 3:].copy()
    features = d["block_features"]
    type_columns = [features.index(f"type_{kind}") for kind in PAGE_KINDS]
    y = (label >= LABEL_AT).astype(np.int32)
    kind_pages = {kind: max(1, int(np.sum(types == kind))) for kind in PAGE_KINDS}
    page_weight = np.asarray([1.0 / np.sqrt(kind_pages.get(t, 1)) for t in types])
    page_weight = page_weight / page_weight.mean()
    w = weights_of(tokens, page_tokens, page_weight[block_page])

    # Folds of pages grouped by site (GroupKFold deals sites to folds by size: no shuffling, no seed needed).
    page_fold = np.zeros(len(page_ids), dtype=np.int32)
    for fold, (_, test) in enumerate(GroupKFold(n_splits=FOLDS).split(x_pages, types, sites)):
        page_fold[test] = fold
    folds = page_fold[block_page]

    # Page-type probabilities no model trained on the page's site gave it: per outer fold, the pages
    # outside it get theirs from an inner round over the other folds (so the block model of a fold
    # never learns from a page-type model that saw its test pages), the pages in it from the models
    # trained on all the others.
    outer_types = np.zeros((len(page_ids), len(PAGE_KINDS)))
    outer_models = []
    outer_empty = np.zeros(len(page_ids))
    empty_models = []
    for fold in range(FOLDS):
        models = page_type_models(x_pages, types, page_fold != fold)
        outer_models.append(models)
        outer_types[page_fold == fold] = page_type_probabilities(models, x_pages[page_fold == fold])
        empty_models.append(no_content_model(x_pages, d["empty"], page_fold != fold))
        outer_empty[page_fold == fold] = empty_models[-1].predict(x_pages[page_fold == fold])

    oof = {"lightgbm": np.zeros(len(y))}
    if compare:
        oof["sklearn-hgb"] = np.zeros(len(y))
    seconds = {name: 0.0 for name in oof}
    threshold = 0.5
    for fold in range(FOLDS):
        inner_types = outer_types.copy()
        for other in range(FOLDS):
            if other == fold:
                continue
            rows = (page_fold != fold) & (page_fold != other)
            inner = page_type_models(x_pages, types, rows)
            inner_types[page_fold == other] = page_type_probabilities(inner, x_pages[page_fold == other])
        x[:, type_columns] = inner_types[block_page]
        train, test = folds != fold, folds == fold
        started = time.time()
        booster = lgb.train(LGB_PARAMS, lgb.Dataset(x[train], y[train], weight=w[train]), ROUNDS)
        seconds["lightgbm"] += time.time() - started
        x_test = x[test].copy()
        x_test[:, type_columns] = outer_types[block_page[test]]
        oof["lightgbm"][test] = booster.predict(x_test)
        def fold_file(name, blocks):
            page_models = [lgb_flat(m, d["page_features"], 0.5) for m in outer_models[fold]]
            no_content = lgb_flat(empty_models[fold], d["page_features"], NO_CONTENT_THRESHOLD)
            with open(f"{directory}/{name}", "w") as f:
                json.dump(model_file(page_models, blocks, no_content), f)

        fold_file(f"fold-{fold}.json", lgb_flat(booster, features, threshold))
        if compare:
            started = time.time()
            hgb = HistGradientBoostingClassifier(
                learning_rate=0.1, max_iter=ROUNDS, max_leaf_nodes=31, min_samples_leaf=40, l2_regularization=1.0,
                early_stopping=False, random_state=SEED,
            )
            hgb.fit(x[train], y[train], sample_weight=w[train])
            seconds["sklearn-hgb"] += time.time() - started
            oof["sklearn-hgb"][test] = hgb.predict_proba(x_test)[:, 1]
            fold_file(f"hgb-fold-{fold}.json", hgb_flat(hgb, features, threshold))
        print(f"fold {fold}: {int(test.sum())} blocks of {int(np.sum(page_fold == fold))} pages held out", flush=True)
    with open(f"{directory}/folds.json", "w") as f:
        json.dump({page: int(fold) for page, fold in zip(page_ids, page_fold)}, f)

    predicted_kind = np.asarray(PAGE_KINDS)[np.argmax(outer_types, axis=1)]
    report = {
        "blocks": int(len(y)),
        "pages": int(len(page_ids)),
        "sites": int(len(set(sites))),
        "positive_share": round(float(np.sum(w * y) / np.sum(w)), 4),
        "page_type_accuracy_oof": {
            "overall": round(float(np.mean(predicted_kind == types)), 4),
            **{kind: round(float(np.mean(predicted_kind[types == kind] == kind)), 4) for kind in PAGE_KINDS},
        },
        "no_main_content_oof": {
            "pages_without": int(np.sum(d["empty"])),
            "answered_empty_rightly": int(np.sum((outer_empty >= NO_CONTENT_THRESHOLD) & (d["empty"] == 1))),
            "answered_empty_wrongly": int(np.sum((outer_empty >= NO_CONTENT_THRESHOLD) & (d["empty"] == 0))),
            "threshold": NO_CONTENT_THRESHOLD,
        },
        "block_level_oof": {name: block_figures(y, p, w, threshold) for name, p in oof.items()},
        "train_seconds_5_folds": {name: round(s, 1) for name, s in seconds.items()},
    }

    # The shipped model: page-type classifiers on every page; the block model on every block, with
    # the page-type probabilities its pages got out of fold (what an unseen page's look like).
    started = time.time()
    final_pages = page_type_models(x_pages, types, np.ones(len(page_ids), dtype=bool))
    x[:, type_columns] = outer_types[block_page]
    booster = lgb.train(LGB_PARAMS, lgb.Dataset(x, y, weight=w), ROUNDS)
    report["final_train_seconds"] = round(time.time() - started, 1)
    model = model_file(
        [lgb_flat(m, d["page_features"], 0.5) for m in final_pages],
        lgb_flat(booster, features, threshold),
        lgb_flat(no_content_model(x_pages, d["empty"], np.ones(len(page_ids), dtype=bool)), d["page_features"], NO_CONTENT_THRESHOLD),
    )
    with open(f"{directory}/model.json", "w") as f:
        json.dump(model, f, separators=(",", ":"))
    # What the trainer's own predict says of a spread of pages and blocks: the engine's evaluator must say the same.
    blocks_sample = np.linspace(0, len(y) - 1, 48).astype(int)
    pages_sample = np.linspace(0, len(page_ids) - 1, 16).astype(int)
    with open(f"{directory}/parity.json", "w") as f:
        json.dump(
            dict(
                blocks=dict(features=x[blocks_sample].tolist(), probabilities=booster.predict(x[blocks_sample]).tolist()),
                pages=dict(
                    features=x_pages[pages_sample].tolist(),
                    probabilities=page_type_probabilities(final_pages, x_pages[pages_sample]).tolist(),
                ),
            ),
            f,
        )
    gain = booster.feature_importance(importance_type="gain")
    report["top_features"] = [[features[i], round(float(gain[i] / gain.sum()), 4)] for i in np.argsort(-gain)[:15]]
    with open(f"{directory}/training.json", "w") as f:
        json.dump(report, f, indent=2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
