#include "core/session/hubcache.h"

#include "core/formats/jsonread.h"
#include "core/models/decoderconfig.h"
#include "core/models/gpt2config.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace core {

namespace {

/** A part of a repository id: letters, digits, '-', '_', '.', not starting or ending with '-' or '.'. */
bool isIdPart(std::string_view part)
{
    if (part.empty() || part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.')
        return false;
    return std::all_of(part.begin(), part.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
            || c == '.';
    });
}

bool isRevision(std::string_view revision)
{
    if (revision.empty() || revision.size() > 256 || revision.front() == '/' || revision.back() == '/'
        || revision.find("..") != std::string_view::npos || revision.find("//") != std::string_view::npos)
        return false;
    return std::all_of(revision.begin(), revision.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
            || c == '.' || c == '/';
    });
}

std::string environment(const char* name)
{
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

/** huggingface_hub's home: $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface; empty without
 *  any of them. */
std::string hubHome()
{
    if (std::string home = environment("HF_HOME"); !home.empty())
        return home;
    if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
        return (fs::path(xdg) / "huggingface").string();
    if (std::string home = environment("HOME"); !home.empty())
        return (fs::path(home) / ".cache" / "huggingface").string();
    return {};
}

/** The text of a small file, or nothing when it cannot be read or holds more than maxBytes. */
std::optional<std::string> readSmallFile(const fs::path& path, std::size_t maxBytes)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return std::nullopt;
    const auto size = fs::file_size(path, ec);
    if (ec || size > maxBytes)
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::string text(size, '\0');
    if (!in.read(text.data(), std::streamsize(size)))
        return std::nullopt;
    return text;
}

/** The commit a ref file names (huggingface_hub writes the hash without a newline; a newline is forgiven). */
std::optional<std::string> readRef(const fs::path& refFile)
{
    auto text = readSmallFile(refFile, 256);
    if (!text)
        return std::nullopt;
    while (!text->empty() && (text->back() == '\n' || text->back() == '\r' || text->back() == ' '))
        text->pop_back();
    if (!isCommitHash(*text))
        return std::nullopt;
    return text;
}

/** The refs of a repository folder, by name ("main", "refs/pr/1"), sorted. */
std::vector<std::string> refNames(const fs::path& repoFolder)
{
    std::vector<std::string> names;
    std::error_code ec;
    const fs::path refs = repoFolder / "refs";
    for (fs::recursive_directory_iterator it(refs, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec))
            names.push_back(it->path().lexically_relative(refs).generic_string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string text;
    for (const std::string& name : names)
        text += (text.empty() ? "" : ", ") + name;
    return text;
}

/** Every blob of the repository once, and every regular file kept in a snapshot (a cache without links). */
std::uint64_t bytesOnDisk(const fs::path& repoFolder)
{
    std::uint64_t bytes = 0;
    for (const char* part : {"blobs", "snapshots"}) {
        std::error_code ec;
        for (fs::recursive_directory_iterator it(repoFolder / part, ec), end; !ec && it != end; it.increment(ec)) {
            std::error_code sizeError;
            if (it->is_symlink(sizeError) || !it->is_regular_file(sizeError))
                continue;
            const auto size = it->file_size(sizeError);
            if (!sizeError)
                bytes += size;
        }
    }
    return bytes;
}

/** What keeps the program from opening a snapshot: its config.json (checked as a checkpoint's is) and its weights
 *  (one safetensors file; never a pickle). Empty when nothing does. */
std::string snapshotProblem(const fs::path& snapshot)
{
    std::error_code ec;
    const auto has = [&](const char* name) { return fs::exists(snapshot / name, ec); };
    if (!fs::exists(fs::symlink_status(snapshot / "config.json", ec)))
        return "no config.json";
    if (!has("config.json"))
        return "config.json links to a blob that is missing";
    // The config is read as loadModelPass reads it: a family of SPEC §6 by its description, anything else as GPT-2.
    const std::string config = (snapshot / "config.json").string();
    const bool family = folderNamesDecoderFamily(snapshot.string());
    std::string why;
    if (family ? !loadDecoderConfig(config, why) : !loadGpt2Config(config, why))
        return why.substr(why.find(": ") == std::string::npos ? 0 : why.find(": ") + 2);
    if (!has("model.safetensors") && !has("model.safetensors.index.json")) {
        if (has("pytorch_model.bin"))
            return "only pickled weights (pytorch_model.bin), which are not read";
        return "no model.safetensors";
    }
    if (family ? !has("tokenizer.json") : !has("vocab.json") && !has("tokenizer.json"))
        return family ? "no tokenizer.json" : "no tokenizer (vocab.json + merges.txt, or tokenizer.json)";
    return {};
}

/** config.json's architectures[0], else its model_type; empty when it says neither. */
std::string architectureOf(const fs::path& snapshot)
{
    const auto text = readSmallFile(snapshot / "config.json", maxConfigBytes);
    if (!text)
        return {};
    std::string error;
    const auto config = readJsonObject(*text, "config.json", JsonLimits{maxConfigBytes}, error);
    if (!config)
        return {};
    const auto architectures = config->find("architectures");
    if (architectures != config->end() && architectures->is_array() && !architectures->empty()
        && architectures->front().is_string())
        return architectures->front().get<std::string>();
    const auto type = config->find("model_type");
    return type != config->end() && type->is_string() ? type->get<std::string>() : std::string();
}

/** "ORG/NAME" of the folder name "models--ORG--NAME". */
std::string repoOfFolderName(const std::string& name)
{
    const std::string repo = name.substr(8);
    const std::size_t separator = repo.find("--");
    return separator == std::string::npos ? repo : repo.substr(0, separator) + "/" + repo.substr(separator + 2);
}

} // namespace

std::string HubId::text() const
{
    return revision == "main" ? repo : repo + "@" + revision;
}

std::optional<HubId> parseHubId(std::string_view text)
{
    const std::size_t at = text.find('@');
    const std::string_view repo = text.substr(0, at);
    const std::size_t slash = repo.find('/');
    if (slash == std::string_view::npos || repo.size() > 96 || repo.find("--") != std::string_view::npos
        || repo.find("..") != std::string_view::npos || !isIdPart(repo.substr(0, slash))
        || !isIdPart(repo.substr(slash + 1)))
        return std::nullopt;
    HubId id;
    id.repo = std::string(repo);
    if (at != std::string_view::npos) {
        if (!isRevision(text.substr(at + 1)))
            return std::nullopt;
        id.revision = std::string(text.substr(at + 1));
    }
    return id;
}

bool isCommitHash(std::string_view text)
{
    return text.size() == 40
        && std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string hubCacheFolder()
{
    if (std::string cache = environment("HF_HUB_CACHE"); !cache.empty())
        return cache;
    const std::string home = hubHome();
    return home.empty() ? home : (fs::path(home) / "hub").string();
}

std::string hubTokenFile()
{
    if (std::string path = environment("HF_TOKEN_PATH"); !path.empty())
        return path;
    const std::string home = hubHome();
    return home.empty() ? home : (fs::path(home) / "token").string();
}

std::string hubRepoFolder(const std::string& cache, const std::string& repo)
{
    const std::size_t slash = repo.find('/');
    const std::string name = slash == std::string::npos ? repo : repo.substr(0, slash) + "--" + repo.substr(slash + 1);
    return (fs::path(cache) / ("models--" + name)).string();
}

std::optional<std::string> resolveCachedModel(const HubId& id, const std::string& cache, std::string& error)
{
    const std::string download = "; download it with attention-explorer --download " + id.text();
    const fs::path repo = hubRepoFolder(cache, id.repo);
    std::error_code ec;
    if (cache.empty()) {
        error = id.text() + ": not a folder, and there is no Hugging Face cache to look in (set HF_HOME)";
        return std::nullopt;
    }
    if (!fs::is_directory(repo, ec)) {
        error = id.text() + ": not a folder, nor in the Hugging Face cache (looked in " + cache + ")" + download;
        return std::nullopt;
    }
    std::string commit;
    if (isCommitHash(id.revision) && fs::is_directory(repo / "snapshots" / id.revision, ec)) {
        commit = id.revision;
    } else if (auto named = readRef(repo / "refs" / id.revision)) {
        commit = *named;
    } else {
        const std::vector<std::string> refs = refNames(repo);
        error = id.text() + ": the Hugging Face cache (" + repo.string() + ") has no revision " + id.revision
            + (refs.empty() ? std::string(" (it names none)") : " (it has " + joined(refs) + ")") + download;
        return std::nullopt;
    }
    const fs::path snapshot = repo / "snapshots" / commit;
    if (!fs::is_directory(snapshot, ec)) {
        error = id.text() + ": the Hugging Face cache names commit " + commit + " for " + id.revision
            + ", but its snapshot " + snapshot.string() + " is missing" + download;
        return std::nullopt;
    }
    return snapshot.string();
}

std::optional<std::string> cachedSnapshotFor(const std::string& modelPath, const std::string& folder, std::string& error)
{
    std::error_code ec;
    const auto id = parseHubId(modelPath);
    if (!id || fs::exists(fs::symlink_status(folder, ec)))
        return std::nullopt;
    return resolveCachedModel(*id, hubCacheFolder(), error);
}

std::optional<HubId> cachedRepoOf(const std::string& folder)
{
    fs::path path = fs::path(folder).lexically_normal();
    if (!path.has_filename())
        path = path.parent_path();
    const std::string commit = path.filename().string();
    const std::string repoFolder = path.parent_path().parent_path().filename().string();
    if (!isCommitHash(commit) || path.parent_path().filename() != "snapshots" || !repoFolder.starts_with("models--"))
        return std::nullopt;
    auto id = parseHubId(repoOfFolderName(repoFolder));
    if (id)
        id->revision = commit;
    return id;
}

std::optional<std::string> savedHubId(const std::string& modelPath, const std::string& folder)
{
    std::optional<HubId> id = cachedRepoOf(folder);  // its revision is the snapshot's commit
    if (!id)
        return std::nullopt;
    if (const auto asked = parseHubId(modelPath); asked && asked->repo == id->repo)
        return modelPath;
    fs::path snapshot = fs::path(folder).lexically_normal();
    if (!snapshot.has_filename())
        snapshot = snapshot.parent_path();
    if (readRef(snapshot.parent_path().parent_path() / "refs" / "main") == id->revision)
        id->revision = "main";
    return id->text();
}

std::vector<CachedModel> listCachedModels(const std::string& cache)
{
    std::vector<CachedModel> models;
    std::error_code ec;
    for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with("models--") || !it->is_directory(ec))
            continue;
        CachedModel model;
        model.id.repo = repoOfFolderName(name);
        model.bytes = bytesOnDisk(it->path());
        const std::vector<std::string> refs = refNames(it->path());
        if (!refs.empty() && std::find(refs.begin(), refs.end(), "main") == refs.end())
            model.id.revision = refs.front();
        std::string why;
        if (const auto folder = resolveCachedModel(model.id, cache, why)) {
            model.folder = *folder;
            model.architecture = architectureOf(*folder);
            model.problem = snapshotProblem(*folder);
        } else {
            model.problem = refs.empty() ? "no revision in refs/" : "the snapshot of " + model.id.revision + " is missing";
        }
        models.push_back(std::move(model));
    }
    std::sort(models.begin(), models.end(), [](const CachedModel& a, const CachedModel& b) { return a.id.repo < b.id.repo; });
    return models;
}

} // namespace core
