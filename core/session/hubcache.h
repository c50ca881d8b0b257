#pragma once
/** The Hugging Face cache as huggingface_hub lays it out (SPEC §7): models--ORG--NAME/refs/REVISION names a commit,
 *  snapshots/COMMIT/ holds the files, mostly as relative links into blobs/. Reading it needs no network. */

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

/** A Hub repository id with its revision: "ORG/NAME[@REVISION]". */
struct HubId {
    std::string repo;                ///< "ORG/NAME"
    std::string revision = "main";  ///< a branch, a tag or a commit hash

    /** "ORG/NAME", or "ORG/NAME@REVISION" when the revision is not main. */
    std::string text() const;
};

/** text as a repository id: ORG and NAME of letters, digits, '-', '_' and '.', neither starting or ending with
 *  '-' or '.', without "--" or "..", at most 96 characters together (huggingface_hub's rule); a revision after
 *  '@' of the same characters and '/', without "..". Nothing when text is not one. */
std::optional<HubId> parseHubId(std::string_view text);

/** True for 40 hexadecimal digits in lower case: a commit hash as the Hub writes it. */
bool isCommitHash(std::string_view text);

/** The cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
 *  ~/.cache/huggingface/hub (huggingface_hub's order). Empty when none can be named (no HOME). */
std::string hubCacheFolder();

/** The token file `huggingface-cli login` writes: $HF_TOKEN_PATH, else $HF_HOME/token, else
 *  $XDG_CACHE_HOME/huggingface/token, else ~/.cache/huggingface/token. Empty when none can be named. */
std::string hubTokenFile();

/** The folder of repo in cache: cache/models--ORG--NAME. */
std::string hubRepoFolder(const std::string& cache, const std::string& repo);

/** The snapshot folder id names in cache: refs/REVISION's commit (or REVISION itself, a commit hash whose
 *  snapshot is there), as snapshots/COMMIT. Nothing, with a one-line error that names the id, the cache folder
 *  looked in and how to download it, when the repository, the revision or its snapshot is not there. */
std::optional<std::string> resolveCachedModel(const HubId& id, const std::string& cache, std::string& error);

/** What a model path (model.path, --model) names when no folder does: the snapshot of the repository id it is.
 *  Nothing when folder (the path as a folder) exists or modelPath is no repository id, and also, with error set as
 *  resolveCachedModel sets it, when the cache does not hold the id. */
std::optional<std::string> cachedSnapshotFor(const std::string& modelPath, const std::string& folder, std::string& error);

/** The repository id whose snapshot folder is (".../models--ORG--NAME/snapshots/COMMIT"); nothing for any other
 *  folder. */
std::optional<HubId> cachedRepoOf(const std::string& folder);

/** What a session file saves as model.path for a model opened from modelPath whose checkpoint is folder, when folder
 *  is a snapshot in the cache (SPEC §7: a model found there is saved as its repository id): modelPath itself when it
 *  is an id of that repository (its revision as written), else ORG/NAME when its refs/main names the snapshot's
 *  commit, else ORG/NAME@COMMIT. Nothing when folder is no snapshot in the cache. */
std::optional<std::string> savedHubId(const std::string& modelPath, const std::string& folder);

/** A model in the cache as Open Model lists it. */
struct CachedModel {
    HubId id;                  ///< the revision is main when the cache has it, else the first named
    std::string folder;        ///< its snapshot; empty when there is none
    std::string architecture;  ///< config.json's architectures[0] (else model_type); empty when unknown
    std::uint64_t bytes = 0;   ///< on disk: every blob of the repository once, and files kept in snapshots
    std::string problem;       ///< why the program cannot open it; empty when it can
};

/** The models in cache (the folders models--*), sorted by id. Each is read within bounds: config.json up to
 *  maxConfigBytes; a folder that is not a model in the cache's layout is listed with its problem. */
std::vector<CachedModel> listCachedModels(const std::string& cache);

} // namespace core
